package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A_WRITE_ONLY;
import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_B;
import static io.ankusa.claimcheck.gateway.TestGateways.get;
import static io.ankusa.claimcheck.gateway.TestGateways.post;
import static io.ankusa.claimcheck.gateway.TestGateways.random;
import static io.ankusa.claimcheck.gateway.TestGateways.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck.RequestPermit;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway's routes and statuses against S3Proxy behind the fault proxy, over plain HTTP. */
class GatewayIT {

  @TempDir static Path dir;
  static String bucket;
  static FaultProxy proxy;
  static Path tokens;
  static Gateway gateway;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    bucket = EmbeddedS3.shared().createBucket("gw-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    tokens = TestGateways.tokens(dir);
    Map<String, Object> m = TestGateways.config(proxy, bucket, tokens);
    m.put("claimcheck.tenant", "team-a");
    m.put("claimcheck.write.max.bytes", "200000");
    m.put("claimcheck.read.max.bytes", "200000");
    m.put("claimcheck.max.concurrent.reads", "50");
    m.put("gateway.threads.max", "16");
    gateway = Gateway.start(m);
    TestGateways.awaitReady(gateway);
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @AfterEach
  void clear() {
    proxy.clear();
  }

  private static String checkIn(byte[] payload, String query) throws Exception {
    HttpResponse<byte[]> r = TestGateways.checkedIn(http, gateway, payload, query);
    String b64 = new String(r.body(), StandardCharsets.US_ASCII);
    assertThat(r.headers().firstValue("Location")).hasValue("/v1/claims/" + b64);
    return b64;
  }

  private static ClaimRef ref(String b64) {
    return RefCodec.decode(Base64.getUrlDecoder().decode(b64));
  }

  private static String b64(ClaimRef ref) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(RefCodec.encode(ref));
  }

  private static String problem(HttpResponse<byte[]> r) {
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  @Test
  void checkInThenGetHeadRangeAndIfNoneMatch() throws Exception {
    byte[] payload = random(50_000);
    String b64 = checkIn(payload, "");
    ClaimRef ref = ref(b64);
    String etag = String.format("\"%08x\"", ref.checksum());

    HttpResponse<byte[]> got = send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A));
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(payload);
    assertThat(got.headers().firstValue("Content-Length")).hasValue("50000");
    assertThat(got.headers().firstValue("ETag")).hasValue(etag);
    assertThat(got.headers().firstValue("Cache-Control").orElseThrow()).contains("immutable");

    HttpResponse<byte[]> head =
        send(
            http,
            get(gateway, "/v1/claims/" + b64, TOKEN_A)
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.headers().firstValue("Content-Length")).hasValue("50000");
    assertThat(head.headers().firstValue("ETag")).hasValue(etag);

    HttpResponse<byte[]> notModified =
        send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A).header("If-None-Match", etag));
    assertThat(notModified.statusCode()).isEqualTo(304);

    HttpResponse<byte[]> part =
        send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A).header("Range", "bytes=10-19"));
    assertThat(part.statusCode()).isEqualTo(206);
    assertThat(part.body()).isEqualTo(java.util.Arrays.copyOfRange(payload, 10, 20));
    assertThat(part.headers().firstValue("Content-Range")).hasValue("bytes 10-19/50000");

    HttpResponse<byte[]> suffix =
        send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A).header("Range", "bytes=-5"));
    assertThat(suffix.statusCode()).isEqualTo(206);
    assertThat(suffix.body()).isEqualTo(java.util.Arrays.copyOfRange(payload, 49_995, 50_000));

    HttpResponse<byte[]> outside =
        send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A).header("Range", "bytes=50000-"));
    assertThat(outside.statusCode()).isEqualTo(416);
    assertThat(outside.headers().firstValue("Content-Range")).hasValue("bytes */50000");
  }

  @Test
  void checkInAnswersTheRawRefAndCompressesOnRequest() throws Exception {
    byte[] text = "a compressible claim ".repeat(2000).getBytes(StandardCharsets.UTF_8);
    HttpResponse<byte[]> raw =
        send(
            http,
            post(gateway, "/v1/claims?compression=zstd", TOKEN_A, text)
                .header("Accept", "application/octet-stream"));
    assertThat(raw.statusCode()).isEqualTo(201);
    ClaimRef ref = RefCodec.decode(raw.body());
    assertThat(ref.codec()).isEqualTo(Codec.ZSTD);
    assertThat(ref.tenant().value()).isEqualTo("team-a");
    HttpResponse<byte[]> got = send(http, get(gateway, "/v1/claims/" + b64(ref), TOKEN_A));
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(text);

    HttpResponse<byte[]> bad =
        send(http, post(gateway, "/v1/claims?compression=brotli", TOKEN_A, text));
    assertThat(bad.statusCode()).isEqualTo(400);
  }

  @Test
  void refsAnswersWhatInspectPrints() throws Exception {
    String b64 = checkIn(random(1000), "");
    ClaimRef ref = ref(b64);
    HttpResponse<byte[]> r = send(http, get(gateway, "/v1/refs/" + b64, TOKEN_A));
    assertThat(r.statusCode()).isEqualTo(200);
    String json = new String(r.body(), StandardCharsets.UTF_8);
    assertThat(json)
        .contains("\"tenant\":\"team-a\"")
        .contains("\"pack_id\":\"" + ref.packId().hex() + "\"")
        .contains("\"index\":0")
        .contains("\"length\":1000")
        .contains("\"codec\":\"none\"")
        .contains("\"version\":1")
        .contains(String.format("\"checksum\":\"%08x\"", ref.checksum()));
  }

  @Test
  void finalAnswersOnlyWhenCertain() throws Exception {
    ClaimRef missing =
        ClaimRef.of(
            io.ankusa.claimcheck.ref.Tenant.of("team-a"),
            new ClaimId(PackId.random(new Random(7)), 0),
            0,
            10,
            123,
            Codec.NONE,
            10);
    HttpResponse<byte[]> notFound = send(http, get(gateway, "/v1/claims/" + b64(missing), TOKEN_A));
    assertThat(notFound.statusCode()).isEqualTo(404);
    assertThat(problem(notFound))
        .contains("\"reason\":\"NOT_FOUND\"")
        .contains("\"tenant\":\"team-a\"")
        .contains("\"claim\":\"" + missing.claimId() + "\"");

    ClaimRef good = ref(checkIn(random(3000), ""));
    ClaimRef wrongChecksum =
        new ClaimRef(
            good.version(),
            good.tenant(),
            good.claimId(),
            good.offset(),
            good.length(),
            good.checksum() ^ 1,
            good.codec(),
            good.rawLength());
    HttpResponse<byte[]> corrupt =
        send(http, get(gateway, "/v1/claims/" + b64(wrongChecksum), TOKEN_A));
    assertThat(corrupt.statusCode()).isEqualTo(502);
    assertThat(problem(corrupt)).contains("\"reason\":\"CORRUPT\"").contains("\"final\":true");

    proxy.down();
    ClaimRef elsewhere =
        ClaimRef.of(
            io.ankusa.claimcheck.ref.Tenant.of("team-a"),
            new ClaimId(PackId.random(new Random(8)), 0),
            0,
            10,
            123,
            Codec.NONE,
            10);
    HttpResponse<byte[]> down =
        send(
            http,
            get(gateway, "/v1/claims/" + b64(elsewhere), TOKEN_A)
                .header("X-Claimcheck-Deadline-Ms", "2000"));
    assertThat(down.statusCode()).as("a store down is never NOT_FOUND").isEqualTo(503);
    assertThat(down.headers().firstValue("Retry-After")).isPresent();
    assertThat(problem(down)).contains("\"final\":false");
  }

  @Test
  void malformedTooLargeAndUnauthorizedRequests() throws Exception {
    assertThat(send(http, get(gateway, "/v1/claims/not!base64", TOKEN_A)).statusCode())
        .isEqualTo(400);
    assertThat(send(http, get(gateway, "/v1/claims/AAAAAAAAAAAAAAAA", TOKEN_A)).statusCode())
        .isEqualTo(400);
    assertThat(send(http, get(gateway, "/v1/claims/" + "A".repeat(2000), TOKEN_A)).statusCode())
        .isEqualTo(400);

    String b64 = checkIn(random(100), "");
    HttpResponse<byte[]> none = send(http, get(gateway, "/v1/claims/" + b64, null));
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(problem(none)).doesNotContain(TOKEN_A);
    HttpResponse<byte[]> bad = send(http, get(gateway, "/v1/claims/" + b64, "not-a-token"));
    assertThat(bad.statusCode()).isEqualTo(401);
    assertThat(problem(bad)).doesNotContain("not-a-token");

    // Past the write limit by its declared length: 413 before the body is read. Sent by hand, the
    // headers alone: a client still sending a body the gateway refused can see the connection
    // close instead of the answer (seen once), and the JDK 17 client's 100-continue hangs on a
    // final answer (JDK-8286171).
    assertThat(declaredTooLarge(200_001)).startsWith("HTTP/1.1 413");
    ClaimRef huge =
        ClaimRef.of(
            io.ankusa.claimcheck.ref.Tenant.of("team-a"),
            new ClaimId(PackId.random(new Random(9)), 0),
            0,
            300_000,
            1,
            Codec.NONE,
            300_000);
    proxy.resetCounts();
    assertThat(send(http, get(gateway, "/v1/claims/" + b64(huge), TOKEN_A)).statusCode())
        .isEqualTo(413);
    assertThat(proxy.requestCount("GET")).as("refused before any store request").isZero();
  }

  @Test
  void aRefOfANewerVersionIsRetriableNotBad() throws Exception {
    byte[] ref = RefCodec.encode(ref(checkIn(random(64), "")));
    byte[] newer = ref.clone();
    newer[4] = 9; // version 9, frame intact
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(newer, 0, newer.length - 4);
    java.nio.ByteBuffer.wrap(newer).putInt(newer.length - 4, (int) crc.getValue());
    String path = "/v1/claims/" + Base64.getUrlEncoder().withoutPadding().encodeToString(newer);
    HttpResponse<byte[]> r = send(http, get(gateway, path, TOKEN_A));
    assertThat(r.statusCode()).as(problem(r)).isEqualTo(503);
    assertThat(r.headers().firstValue("Retry-After")).isPresent();
    assertThat(problem(r)).contains("UNKNOWN_VERSION");
  }

  @Test
  void aChunkedUploadPastTheWriteLimitIs413() throws Exception {
    byte[] big = random(450_000);
    HttpResponse<byte[]> r =
        send(
            http,
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(gateway.uri() + "/v1/claims"))
                .header("Authorization", "Bearer " + TOKEN_A)
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new java.io.ByteArrayInputStream(big))));
    assertThat(r.statusCode()).isEqualTo(413);
    byte[] ok = random(150_000);
    HttpResponse<byte[]> chunkedOk =
        send(
            http,
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(gateway.uri() + "/v1/claims"))
                .header("Authorization", "Bearer " + TOKEN_A)
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new java.io.ByteArrayInputStream(ok))));
    assertThat(chunkedOk.statusCode()).isEqualTo(201);
    String b64 = new String(chunkedOk.body(), StandardCharsets.US_ASCII);
    assertThat(send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A)).body()).isEqualTo(ok);
  }

  @Test
  void aTokenOfTenantBCanNeitherReadNorWriteTenantAsClaims() throws Exception {
    String b64 = checkIn(random(777), "");
    proxy.resetCounts();
    HttpResponse<byte[]> asB = send(http, get(gateway, "/v1/claims/" + b64, TOKEN_B));
    assertThat(asB.statusCode()).isEqualTo(403);
    assertThat(problem(asB)).doesNotContain(TOKEN_B);
    assertThat(send(http, get(gateway, "/v1/refs/" + b64, TOKEN_B)).statusCode()).isEqualTo(403);
    assertThat(send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A_WRITE_ONLY)).statusCode())
        .as("write-only")
        .isEqualTo(403);
    assertThat(proxy.requestCount("GET")).as("refused before any store request").isZero();

    // B's check-in lands under B's tenant, whatever the gateway's own claimcheck.tenant is.
    HttpResponse<byte[]> written = send(http, post(gateway, "/v1/claims", TOKEN_B, random(55)));
    assertThat(written.statusCode()).isEqualTo(201);
    ClaimRef refB = ref(new String(written.body(), StandardCharsets.US_ASCII));
    assertThat(refB.tenant().value()).isEqualTo("team-b");
    assertThat(send(http, get(gateway, "/v1/claims/" + b64(refB), TOKEN_A)).statusCode())
        .isEqualTo(403);
    assertThat(send(http, get(gateway, "/v1/claims/" + b64(refB), TOKEN_B)).statusCode())
        .isEqualTo(200);
  }

  @Test
  void theTokensFileIsReloadedWithoutARestart() throws Exception {
    String b64 = checkIn(random(321), "");
    String fresh = "fresh-token-" + UUID.randomUUID();
    String before = Files.readString(tokens);
    try {
      assertThat(send(http, get(gateway, "/v1/claims/" + b64, fresh)).statusCode()).isEqualTo(401);
      Files.writeString(tokens, Tokens.hashHex(fresh) + " team-a read\n");
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      int status;
      do {
        Thread.sleep(50);
        status = send(http, get(gateway, "/v1/claims/" + b64, fresh)).statusCode();
      } while (status != 200 && System.nanoTime() < end);
      assertThat(status).isEqualTo(200);
      assertThat(send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A)).statusCode())
          .as("a token removed from the file is refused")
          .isEqualTo(401);
      Files.writeString(tokens, "this line does not parse\n");
      Thread.sleep(500);
      assertThat(send(http, get(gateway, "/v1/claims/" + b64, fresh)).statusCode())
          .as("a file that does not parse leaves the previous tokens")
          .isEqualTo(200);
    } finally {
      Files.writeString(tokens, before);
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A)).statusCode() != 200
          && System.nanoTime() < end) {
        Thread.sleep(50);
      }
    }
  }

  @Test
  void aFullGateAnswers503BeforeLocatingAnything() throws Exception {
    String b64 = checkIn(random(4321), "");
    List<RequestPermit> held = new ArrayList<>();
    try {
      // A request's permit comes back once Jetty reports its answer sent, which may be just after
      // the client has read it: take every permit, retrying until the last answer's is back.
      long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (true) {
        RequestPermit p;
        while ((p = gateway.claimCheck().admitRequest()) != null) {
          held.add(p);
        }
        if (held.size() == 50 || System.nanoTime() > end) {
          break;
        }
        held.forEach(RequestPermit::close);
        held.clear();
        Thread.sleep(20);
      }
      assertThat(held).hasSize(50);
      proxy.resetCounts();
      HttpResponse<byte[]> shed = send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A));
      assertThat(shed.statusCode()).isEqualTo(503);
      assertThat(shed.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(problem(shed)).contains("overloaded");
      HttpResponse<byte[]> garbage = send(http, get(gateway, "/v1/claims/!!", TOKEN_A));
      assertThat(garbage.statusCode()).as("no ref decoded past the gate").isEqualTo(503);
      assertThat(proxy.requestCount("GET") + proxy.requestCount("HEAD")).isZero();
    } finally {
      held.forEach(RequestPermit::close);
    }
    assertThat(send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A)).statusCode()).isEqualTo(200);
    assertThat(gateway.claimCheck().admitRequest())
        .as("every permit came back")
        .isNotNull()
        .satisfies(RequestPermit::close);
  }

  @Test
  void aHungStoreCostsTheDeadlineNotAThreadPerRequest() throws Exception {
    String b64 = checkIn(random(999), "");
    ClaimRef ref = ref(b64);
    proxy.inject(io.ankusa.claimcheck.testkit.Fault.hang(Duration.ofSeconds(60)), "GET");
    long start = System.nanoTime();
    List<CompletableFuture<HttpResponse<byte[]>>> waiting = new ArrayList<>();
    for (int i = 0; i < 40; i++) { // more than the 16 threads of the server's pool
      waiting.add(
          http.sendAsync(
              get(gateway, "/v1/claims/" + b64, TOKEN_A)
                  .header("X-Claimcheck-Deadline-Ms", "3000")
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray()));
    }
    Thread.sleep(500);
    HttpResponse<byte[]> live = send(http, get(gateway, "/health/live", null));
    assertThat(live.statusCode()).as("threads are free while 40 redeems wait").isEqualTo(200);
    assertThat(waiting.stream().filter(CompletableFuture::isDone).count())
        .as("still waiting for the hung store")
        .isZero();
    for (CompletableFuture<HttpResponse<byte[]>> f : waiting) {
      HttpResponse<byte[]> r = f.join();
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).isPresent();
      assertThat(problem(r)).contains("\"tenant\":\"team-a\"");
    }
    long ms = Duration.ofNanos(System.nanoTime() - start).toMillis();
    assertThat(ms)
        .as("answered by the 3 s deadline (plus slack), not the 30 s one")
        .isLessThan(25_000);
    proxy.clear();
    String other = checkIn(random(998), "");
    assertThat(send(http, get(gateway, "/v1/claims/" + other, TOKEN_A)).statusCode())
        .isEqualTo(200);
    assertThat(ref.length()).isEqualTo(999);
  }

  @Test
  void aStoreHungOnWritesTakesTheCheckInThreadsNotTheServers() throws Exception {
    Map<String, Object> m = TestGateways.config(proxy, bucket, tokens);
    m.put("gateway.checkin.threads", "1");
    m.put("claimcheck.store.op.deadline.ms", "3000");
    try (Gateway small = Gateway.start(m)) {
      TestGateways.awaitReady(small);
      proxy.inject(io.ankusa.claimcheck.testkit.Fault.hang(Duration.ofSeconds(60)), "PUT");
      CompletableFuture<HttpResponse<byte[]>> first =
          http.sendAsync(
              post(small, "/v1/claims", TOKEN_A, random(500))
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (proxy.inFlight() == 0 && System.nanoTime() < end) {
        Thread.sleep(20);
      }
      assertThat(proxy.inFlight()).as("the first check-in reached the hung store").isPositive();
      HttpResponse<byte[]> second = send(http, post(small, "/v1/claims", TOKEN_A, random(501)));
      assertThat(second.statusCode()).isEqualTo(503);
      assertThat(second.headers().firstValue("Retry-After")).isPresent();
      assertThat(send(http, get(small, "/health/live", null)).statusCode()).isEqualTo(200);
      HttpResponse<byte[]> failed = first.join();
      assertThat(failed.statusCode()).as("a write that got no answer is retriable").isEqualTo(503);
    }
  }

  @Test
  void metricsAndHealth() throws Exception {
    String b64 = checkIn(random(2222), "");
    send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A));
    HttpResponse<byte[]> m = send(http, get(gateway, "/metrics", null));
    assertThat(m.statusCode()).isEqualTo(200);
    String text = new String(m.body(), StandardCharsets.UTF_8);
    assertThat(text)
        .contains("claimcheck_gateway_requests_total{route=\"claims\",status=\"200\"}")
        .contains("claimcheck_gateway_served_bytes_total")
        .doesNotContain(TOKEN_A);
    assertThat(send(http, get(gateway, "/health/live", null)).statusCode()).isEqualTo(200);
    assertThat(send(http, get(gateway, "/health/ready", null)).statusCode()).isEqualTo(200);
  }

  /** POSTs only the headers of a {@code length}-byte upload; returns the answer's status line. */
  private static String declaredTooLarge(long length) throws java.io.IOException {
    java.net.URI uri = gateway.uri();
    try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
      socket.setSoTimeout(30_000);
      String head =
          "POST /v1/claims HTTP/1.1\r\nHost: "
              + uri.getHost()
              + "\r\nAuthorization: Bearer "
              + TOKEN_A
              + "\r\nContent-Type: application/octet-stream\r\nContent-Length: "
              + length
              + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new java.io.BufferedReader(
              new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
          .readLine();
    }
  }
}
