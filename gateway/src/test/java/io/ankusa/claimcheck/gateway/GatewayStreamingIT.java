package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static io.ankusa.claimcheck.gateway.TestGateways.get;
import static io.ankusa.claimcheck.gateway.TestGateways.random;
import static io.ankusa.claimcheck.gateway.TestGateways.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.RefCodec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims past the whole-claim limits stream through the gateway (issue 17): a POST past {@code
 * claimcheck.write.max.bytes} is a streamed check-in, a GET streams the claim in chunks, and a
 * claim whose end does not verify is an aborted response — the client sees a broken transfer, never
 * a complete body. Over a file store, so a test can damage a stored claim in place.
 */
class GatewayStreamingIT {

  private static final int LIMIT = 1 << 20;

  @TempDir static Path dir;
  static Path root;
  static Gateway gateway;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    root = dir.resolve("store");
    Files.createDirectories(root);
    Files.writeString(root.resolve(".claimcheck-store"), "");
    Map<String, Object> m = new java.util.HashMap<>();
    m.put("claimcheck.stores", root.toUri().toString());
    m.put("gateway.listen", "127.0.0.1:0");
    m.put("gateway.tls.enabled", "false");
    m.put("gateway.tokens.file", TestGateways.tokens(dir).toString());
    m.put("claimcheck.tenant", "team-a");
    m.put("claimcheck.write.max.bytes", Integer.toString(LIMIT));
    m.put("claimcheck.read.max.bytes", Integer.toString(LIMIT));
    m.put("claimcheck.stream.max.bytes", Integer.toString(64 << 20));
    gateway = Gateway.start(m);
    TestGateways.awaitReady(gateway);
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static ClaimRef ref(HttpResponse<byte[]> created) {
    return RefCodec.decode(
        Base64.getUrlDecoder().decode(new String(created.body(), StandardCharsets.US_ASCII)));
  }

  private static HttpResponse<byte[]> post(byte[] body, String query, boolean chunked)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(gateway.uri() + "/v1/claims" + query))
            .header("Authorization", "Bearer " + TOKEN_A)
            .POST(
                chunked
                    ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    return send(http, b);
  }

  private static String path(ClaimRef ref) {
    return "/v1/claims/"
        + Base64.getUrlEncoder().withoutPadding().encodeToString(RefCodec.encode(ref));
  }

  @Test
  void aPostPastTheWriteLimitIsAStreamedClaimThatAGetStreamsBack() throws Exception {
    byte[] value = random(6 << 20);
    HttpResponse<byte[]> created = post(value, "", false);
    assertThat(created.statusCode())
        .as(new String(created.body(), StandardCharsets.UTF_8))
        .isEqualTo(201);
    ClaimRef ref = ref(created);
    assertThat(ref.isStreamed()).isTrue();
    assertThat(ref.rawLength()).isEqualTo(value.length);
    HttpResponse<byte[]> got = send(http, get(gateway, path(ref), TOKEN_A));
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.headers().firstValueAsLong("Content-Length")).hasValue(value.length);
    assertThat(got.body()).isEqualTo(value);
  }

  @Test
  void aChunkedPostIsPackedWithinTheWriteLimitAndStreamedPastIt() throws Exception {
    byte[] small = random(100_000);
    ClaimRef packed = ref(post(small, "", true));
    assertThat(packed.isStreamed()).isFalse();
    assertThat(send(http, get(gateway, path(packed), TOKEN_A)).body()).isEqualTo(small);
    byte[] big = random(3 << 20);
    ClaimRef streamed = ref(post(big, "?compression=zstd", true));
    assertThat(streamed.isStreamed()).isTrue();
    assertThat(streamed.codec()).isEqualTo(Codec.ZSTD);
    assertThat(send(http, get(gateway, path(streamed), TOKEN_A)).body()).isEqualTo(big);
  }

  @Test
  void aPostDeclaredPastTheStreamLimitIs413() throws Exception {
    HttpResponse<byte[]> r = post(new byte[(64 << 20) + 1], "", false);
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(new String(r.body(), StandardCharsets.UTF_8))
        .contains("claimcheck.stream.max.bytes");
  }

  @Test
  void aTamperedStreamedClaimIsAnAbortedResponseNeverACompleteBody() throws Exception {
    byte[] value = random(5 << 20);
    ClaimRef ref = ref(post(value, "", false));
    Path file = root.resolve("team-a").resolve(ref.packId().hex());
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(value.length - 10); // in the last chunk
      int b = f.read();
      f.seek(value.length - 10);
      f.write(b ^ 0x20);
    }
    HttpResponse<InputStream> r =
        http.send(
            get(gateway, path(ref), TOKEN_A).timeout(Duration.ofSeconds(60)).build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValueAsLong("Content-Length")).hasValue(value.length);
    long read = 0;
    IOException broken = null;
    try (InputStream in = r.body()) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) >= 0; ) {
        read += n;
      }
    } catch (IOException e) {
      broken = e;
    }
    assertThat(read).as("never the whole body").isLessThan(value.length);
    assertThat(broken).as("a broken transfer").isNotNull();
  }

  @Test
  void aPackedClaimStillComesWholeAndAStreamedOneRangesByItsRawBytes() throws Exception {
    byte[] value = random(2 << 20);
    ClaimRef ref = ref(post(value, "", false));
    HttpResponse<byte[]> part =
        send(http, get(gateway, path(ref), TOKEN_A).header("Range", "bytes=1000-1999"));
    assertThat(part.statusCode()).isEqualTo(206);
    assertThat(part.body()).isEqualTo(java.util.Arrays.copyOfRange(value, 1000, 2000));
  }
}
