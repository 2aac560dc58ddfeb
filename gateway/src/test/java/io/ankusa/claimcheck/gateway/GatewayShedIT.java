package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck.RequestPermit;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
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
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request gate is judged on Jetty's selector thread: a shed request is answered even while
 * every thread of the server's pool is busy, with the same answer as ever (503, Retry-After, the
 * problem body; none for HEAD), before any store request or ref decoding; admitted requests are
 * served by the pool once it frees.
 */
class GatewayShedIT {

  @TempDir static Path dir;
  static FaultProxy proxy;
  static String bucket;

  @BeforeAll
  static void start() {
    bucket =
        EmbeddedS3.shared().createBucket("gws-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void aShedRequestIsAnsweredWhileEveryPoolThreadIsBusy() throws Exception {
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("claimcheck.max.concurrent.reads", "2");
    try (Gateway g = Gateway.start(m)) {
      // Ready first: its readiness probe is a store request, not one of the shed request's.
      TestGateways.awaitReady(g);
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      String b64 =
          new String(
              TestGateways.checkedIn(http, g, TestGateways.random(5000), "").body(),
              StandardCharsets.US_ASCII);
      List<RequestPermit> held = new ArrayList<>();
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch blocked = new CountDownLatch(64);
      try {
        RequestPermit p;
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (held.size() < 2 && System.nanoTime() < end) {
          if ((p = g.claimCheck().admitRequest()) != null) {
            held.add(p);
          } else {
            Thread.sleep(10); // the check-in's permit comes back once its answer is sent
          }
        }
        assertThat(held).as("the gate's two permits").hasSize(2);
        // Every pool thread (and as many queued tasks) waits: nothing handed to the pool runs.
        for (int i = 0; i < 64; i++) {
          g.pool()
              .execute(
                  () -> {
                    blocked.countDown();
                    try {
                      release.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  });
        }
        proxy.resetCounts();
        HttpResponse<byte[]> shed =
            http.send(
                TestGateways.get(g, "/v1/claims/" + b64, TOKEN_A)
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(shed.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(shed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(shed.headers().firstValue("Cache-Control")).hasValue("no-store");
        String body = new String(shed.body(), StandardCharsets.UTF_8);
        assertThat(body).contains("overloaded").contains("UNAVAILABLE");
        assertThat(shed.headers().firstValueAsLong("Content-Length")).hasValue(shed.body().length);
        HttpResponse<byte[]> head =
            http.send(
                TestGateways.get(g, "/v1/claims/" + b64, TOKEN_A)
                    .method("HEAD", HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(head.statusCode()).isEqualTo(503);
        assertThat(head.body()).isEmpty();
        HttpResponse<byte[]> garbage =
            http.send(
                TestGateways.get(g, "/v1/refs/!!", "not-a-token")
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(garbage.statusCode())
            .as("no token checked, no ref decoded past the gate")
            .isEqualTo(503);
        assertThat(proxy.requestCount("GET") + proxy.requestCount("HEAD")).isZero();
        assertThat(blocked.getCount()).as("the pool was still busy").isPositive();
      } finally {
        release.countDown();
        held.forEach(RequestPermit::close);
      }
      HttpResponse<byte[]> ok =
          TestGateways.send(http, TestGateways.get(g, "/v1/claims/" + b64, TOKEN_A));
      assertThat(ok.statusCode()).as("admitted once the pool and the gate free").isEqualTo(200);
      assertThat(ok.body()).hasSize(5000);
    }
  }
}
