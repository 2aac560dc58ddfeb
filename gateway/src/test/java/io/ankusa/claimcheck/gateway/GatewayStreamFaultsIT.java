package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static io.ankusa.claimcheck.gateway.TestGateways.get;
import static io.ankusa.claimcheck.gateway.TestGateways.random;
import static io.ankusa.claimcheck.gateway.TestGateways.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Streamed claims through the gateway over S3 behind a fault proxy: a streamed redeem whose end
 * does not verify while a second look at the store does (the answers disagree: {@code UNAVAILABLE},
 * not {@code CORRUPT}) is an aborted response, never a complete body; and a store that hangs during
 * streamed check-ins answers them 503 at the store deadline, on no more threads than {@code
 * gateway.checkin.threads}, leaving no object visible.
 */
class GatewayStreamFaultsIT {

  private static final int LIMIT = 1 << 20;

  @TempDir static Path dir;
  static FaultProxy proxy;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private static Map<String, Object> config(String bucket) throws IOException {
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("claimcheck.tenant", "team-a");
    m.put("claimcheck.write.max.bytes", Integer.toString(LIMIT));
    m.put("claimcheck.read.max.bytes", Integer.toString(LIMIT));
    m.put("claimcheck.stream.max.bytes", Integer.toString(64 << 20));
    m.put("claimcheck.cache.max.bytes", "0");
    return m;
  }

  private static String bucket() {
    return EmbeddedS3.shared().createBucket("gwsf-" + UUID.randomUUID().toString().substring(0, 8));
  }

  private static HttpRequest.Builder post(Gateway g, byte[] body) {
    return HttpRequest.newBuilder(URI.create(g.uri() + "/v1/claims"))
        .header("Authorization", "Bearer " + TOKEN_A)
        .timeout(Duration.ofSeconds(90))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
  }

  @Test
  void aStreamedEndThatDisagreesWithTheSecondLookIsAnAbortedResponse() throws Exception {
    String bucket = bucket();
    try (Gateway g = Gateway.start(config(bucket))) {
      TestGateways.awaitReady(g);
      byte[] value = random(3 * LIMIT + 123); // a streamed claim of four 1 MiB chunks
      HttpResponse<byte[]> created = send(http, post(g, value));
      assertThat(created.statusCode()).isEqualTo(201);
      String path = "/v1/claims/" + new String(created.body(), StandardCharsets.US_ASCII);
      proxy.resetCounts();
      // The first store GET of the redeem (its first chunk) comes back damaged in transit; the
      // stored bytes are whole, so the second look at the end verifies: the answers disagree.
      proxy.failTimes(1, Fault.corruptBody(), "GET");
      HttpResponse<InputStream> r =
          http.send(
              get(g, path, TOKEN_A).timeout(Duration.ofSeconds(90)).build(),
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
      assertThat(proxy.failuresLeft()).as("the damaged GET was served").isZero();
      assertThat(read).as("never the whole body").isLessThan(value.length);
      assertThat(broken).as("a broken transfer").isNotNull();
      assertThat(proxy.requestCount("GET"))
          .as("four chunk reads, then the second look read the claim again")
          .isGreaterThanOrEqualTo(8);
      // Not CORRUPT (the stored claim is whole): the next redeem serves every byte.
      HttpResponse<byte[]> again = send(http, get(g, path, TOKEN_A));
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(again.body()).isEqualTo(value);
    } finally {
      proxy.clear();
    }
  }

  @Test
  void aStoreHungDuringStreamedCheckInsCostsTheDeadlineOnBoundedThreads() throws Exception {
    String bucket = bucket();
    Map<String, Object> m = config(bucket);
    m.put("gateway.checkin.threads", "2");
    m.put("claimcheck.store.op.deadline.ms", "2000");
    try (Gateway g = Gateway.start(m)) {
      TestGateways.awaitReady(g);
      proxy.inject(Fault.hang(Duration.ofSeconds(60)), "PUT"); // the upload's parts
      List<CompletableFuture<HttpResponse<byte[]>>> posts = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        posts.add(
            http.sendAsync(
                post(g, random(2 * LIMIT + i)).build(), HttpResponse.BodyHandlers.ofByteArray()));
      }
      long start = System.nanoTime();
      int most = 0;
      while (!CompletableFuture.allOf(posts.toArray(CompletableFuture[]::new)).isDone()) {
        most = Math.max(most, checkInThreads());
        Thread.sleep(20);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("answered by the store deadline, not the 60 s hang")
            .isLessThan(Duration.ofSeconds(50));
      }
      for (CompletableFuture<HttpResponse<byte[]>> p : posts) {
        HttpResponse<byte[]> r = p.join();
        assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
      }
      assertThat(most).as("no more check-in threads than gateway.checkin.threads").isLessThan(3);
      assertThat(send(http, get(g, "/health/live", null)).statusCode()).isEqualTo(200);
      proxy.clear();
      try (S3Client s3 = s3()) {
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket)).contents())
            .as("no object of a failed check-in is visible")
            .isEmpty();
      }
    } finally {
      proxy.clear();
    }
  }

  private static int checkInThreads() {
    int n = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("claimcheck-gateway-checkin") && t.isAlive()) {
        n++;
      }
    }
    return n;
  }

  private static S3Client s3() {
    EmbeddedS3 s = EmbeddedS3.shared();
    return S3Client.builder()
        .endpointOverride(s.endpoint())
        .region(Region.of(s.region()))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s.accessKey(), s.secretKey())))
        .build();
  }
}
