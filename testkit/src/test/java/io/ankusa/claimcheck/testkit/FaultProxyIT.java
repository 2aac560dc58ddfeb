package io.ankusa.claimcheck.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class FaultProxyIT {

  private static final String BUCKET = "testkit-fault-it";
  private static final byte[] BYTES = "pass-through".getBytes(StandardCharsets.UTF_8);

  private static EmbeddedS3 s3;
  private static FaultProxy proxy;
  private static S3AsyncClient client;

  @BeforeAll
  static void startProxy() {
    s3 = EmbeddedS3.shared();
    s3.createBucket(BUCKET);
    proxy = FaultProxy.inFrontOf(s3);
    client = S3Clients.client(proxy.endpoint(), s3);
    S3Clients.put(client, BUCKET, "k", BYTES);
  }

  @AfterAll
  static void stopProxy() {
    client.close();
    proxy.close();
  }

  @AfterEach
  void clear() {
    proxy.clear();
    proxy.resetCounts();
  }

  @Test
  void passesThroughAndCountsRequestsPerMethod() {
    proxy.resetCounts();
    S3Clients.put(client, BUCKET, "counted", BYTES);
    assertThat(S3Clients.get(client, BUCKET, "counted")).isEqualTo(BYTES);
    assertThat(S3Clients.get(client, BUCKET, "counted")).isEqualTo(BYTES);
    client.headObject(b -> b.bucket(BUCKET).key("counted")).join();

    assertThat(proxy.requestCount("PUT")).isEqualTo(1);
    assertThat(proxy.requestCount("GET")).isEqualTo(2);
    assertThat(proxy.requestCount("head")).isEqualTo(1);
    assertThat(proxy.requestCount("DELETE")).isZero();
    proxy.resetCounts();
    assertThat(proxy.requestCount("GET")).isZero();
  }

  @Test
  void slowDownIs503WithRetryAfterEvenForHead() {
    proxy.throttle503SlowDown(Duration.ofSeconds(2));

    S3Exception get = s3Failure(() -> S3Clients.get(client, BUCKET, "k"));
    assertThat(get.statusCode()).isEqualTo(503);
    assertThat(get.awsErrorDetails().errorCode()).isEqualTo("SlowDown");
    assertThat(get.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("Retry-After"))
        .hasValue("2");

    S3Exception head = s3Failure(() -> client.headObject(b -> b.bucket(BUCKET).key("k")).join());
    assertThat(head.statusCode()).isEqualTo(503);
    assertThat(head.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("Retry-After"))
        .hasValue("2");
    assertThat(proxy.requestCount("GET")).isEqualTo(1);
    assertThat(proxy.requestCount("HEAD")).isEqualTo(1);

    proxy.clear();
    assertThat(S3Clients.get(client, BUCKET, "k")).isEqualTo(BYTES);
  }

  @Test
  void throttle429AndForbidden403() {
    proxy.throttle429();
    assertThat(s3Failure(() -> S3Clients.get(client, BUCKET, "k")).statusCode()).isEqualTo(429);
    proxy.forbidden403();
    S3Exception forbidden = s3Failure(() -> S3Clients.put(client, BUCKET, "x", BYTES));
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
  }

  @Test
  void hangHoldsARequestPastTheClientTimeoutThenPassesThrough() {
    proxy.hang(Duration.ofSeconds(3));
    try (S3AsyncClient impatient =
        S3Clients.client(proxy.endpoint(), s3, s3.secretKey(), Duration.ofMillis(500))) {
      long start = System.nanoTime();
      Throwable t = catchThrowable(() -> S3Clients.get(impatient, BUCKET, "k"));
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      assertThat(t.getCause())
          .isInstanceOfAny(ApiCallAttemptTimeoutException.class, ApiCallTimeoutException.class);
      assertThat(tookMs).isLessThan(2500);
    }
    proxy.hang(Duration.ofMillis(300));
    long start = System.nanoTime();
    assertThat(S3Clients.get(client, BUCKET, "k")).isEqualTo(BYTES);
    assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(300);
  }

  @Test
  void resetIsAClientSideFailure() {
    proxy.reset();
    Throwable t = catchThrowable(() -> S3Clients.get(client, BUCKET, "k"));
    assertThat(t).isInstanceOf(CompletionException.class);
    assertThat(t.getCause()).isInstanceOf(SdkClientException.class);
    assertThat(proxy.requestCount("GET")).isEqualTo(1);
  }

  @Test
  void downRefusesConnectionsAndUpListensOnTheSamePort() {
    proxy.down();
    assertThat(proxy.isUp()).isFalse();
    Throwable t = catchThrowable(() -> S3Clients.get(client, BUCKET, "k"));
    assertThat(t.getCause()).isInstanceOf(SdkClientException.class);
    assertThat(rootCause(t)).isInstanceOf(ConnectException.class);
    assertThat(proxy.requestCount("GET")).isZero();

    proxy.up();
    assertThat(proxy.isUp()).isTrue();
    assertThat(S3Clients.get(client, BUCKET, "k")).isEqualTo(BYTES);
  }

  @Test
  void failTimesFailsExactlyNThenRecovers() {
    proxy.failTimes(2, Fault.forbidden());
    assertThat(s3Failure(() -> S3Clients.get(client, BUCKET, "k")).statusCode()).isEqualTo(403);
    assertThat(proxy.failuresLeft()).isEqualTo(1);
    assertThat(s3Failure(() -> S3Clients.get(client, BUCKET, "k")).statusCode()).isEqualTo(403);
    assertThat(proxy.failuresLeft()).isZero();
    assertThat(S3Clients.get(client, BUCKET, "k")).isEqualTo(BYTES);
    assertThat(proxy.requestCount("GET")).isEqualTo(3);
  }

  @Test
  void aFaultCanBeRestrictedToOneMethod() {
    proxy.inject(Fault.serverError(), "GET");
    proxy.failTimes(1, Fault.tooManyRequests(), "HEAD");
    S3Clients.put(client, BUCKET, "method", BYTES);
    assertThat(s3Failure(() -> S3Clients.get(client, BUCKET, "method")).statusCode())
        .isEqualTo(500);
    assertThat(
            s3Failure(() -> client.headObject(b -> b.bucket(BUCKET).key("method")).join())
                .statusCode())
        .isEqualTo(429);
    client.headObject(b -> b.bucket(BUCKET).key("method")).join();
  }

  @Test
  void aHungRequestReachesTheStoreOnlyAfterTheDelay() throws Exception {
    proxy.hang(Duration.ofMillis(1500));
    try (S3AsyncClient direct = S3Clients.client(s3.endpoint(), s3)) {
      CompletableFuture<?> put =
          client.putObject(b -> b.bucket(BUCKET).key("held"), AsyncRequestBody.fromBytes(BYTES));
      Thread.sleep(500);
      Throwable early = catchThrowable(() -> S3Clients.get(direct, BUCKET, "held"));
      assertThat(early.getCause()).isInstanceOf(NoSuchKeyException.class);
      put.join();
      assertThat(S3Clients.get(direct, BUCKET, "held")).isEqualTo(BYTES);
    }
  }

  @Test
  void throttleAboveShedsRequestsBeyondTheConcurrencyLimit() {
    // Every request is held 2 s, so all six are in flight at once; only two are let in.
    try (FaultProxy limited =
            FaultProxy.inFrontOf(s3).hang(Duration.ofSeconds(2)).throttleAbove(2);
        S3AsyncClient c =
            S3Clients.client(limited.endpoint(), s3, s3.secretKey(), Duration.ofSeconds(10))) {
      List<CompletableFuture<Integer>> outcomes = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        outcomes.add(
            c.getObject(b -> b.bucket(BUCKET).key("k"), AsyncResponseTransformer.toBytes())
                .handle((r, e) -> e == null ? 200 : ((S3Exception) e.getCause()).statusCode()));
      }
      List<Integer> statuses = outcomes.stream().map(CompletableFuture::join).toList();
      long ok = statuses.stream().filter(st -> st == 200).count();
      assertThat(statuses).containsOnly(200, 503);
      assertThat(ok).isBetween(1L, 2L);
      assertThat(limited.requestCount("GET")).isEqualTo(6);
      assertThat(limited.inFlight()).isZero();
      limited.throttleAbove(0);
      assertThat(S3Clients.get(c, BUCKET, "k")).isEqualTo(BYTES);
    }
  }

  @Test
  void htmlNotFoundIsA404PageWithoutAnyS3Trace() {
    proxy.inject(Fault.htmlNotFound(), "GET");
    S3Exception e = s3Failure(() -> S3Clients.get(client, BUCKET, "k"));
    assertThat(e.statusCode()).isEqualTo(404);
    SdkHttpResponse http = e.awsErrorDetails().sdkHttpResponse();
    assertThat(http.firstMatchingHeader("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/html"));
    assertThat(http.firstMatchingHeader("x-amz-request-id")).isEmpty();
    assertThat(e.awsErrorDetails().errorCode()).isNotEqualTo("NoSuchKey");
    assertThat(e).isNotInstanceOf(NoSuchKeyException.class);
  }

  @Test
  void partialWithoutContentRangeKeepsTheRealBytesButDropsTheHeader() {
    proxy.inject(Fault.partialWithoutContentRange(), "GET");
    ResponseBytes<GetObjectResponse> r = ranged(client, "bytes=2-5");
    assertThat(r.response().sdkHttpResponse().statusCode()).isEqualTo(206);
    assertThat(r.response().contentRange()).isNull();
    assertThat(r.asByteArray()).isEqualTo(Arrays.copyOfRange(BYTES, 2, 6));
  }

  @Test
  void truncatedBodyIsShorterWithAConsistentContentLengthAndTheRealContentRange() {
    proxy.inject(Fault.truncatedBody(), "GET");
    ResponseBytes<GetObjectResponse> r = ranged(client, "bytes=0-7");
    assertThat(r.response().sdkHttpResponse().statusCode()).isEqualTo(206);
    assertThat(r.response().contentRange()).isEqualTo("bytes 0-7/" + BYTES.length);
    assertThat(r.response().contentLength()).isEqualTo(6L);
    assertThat(r.asByteArray()).isEqualTo(Arrays.copyOfRange(BYTES, 0, 6));
    assertThat(S3Clients.get(client, BUCKET, "k")).hasSize(BYTES.length - BYTES.length / 4);
  }

  @Test
  void corruptBodyFlipsEveryByteAndKeepsTheLength() {
    proxy.failTimes(1, Fault.corruptBody(), "GET");
    byte[] bad = S3Clients.get(client, BUCKET, "k");
    assertThat(bad).hasSize(BYTES.length);
    for (int i = 0; i < BYTES.length; i++) {
      assertThat(bad[i]).isEqualTo((byte) ~BYTES[i]);
    }
    assertThat(S3Clients.get(client, BUCKET, "k")).isEqualTo(BYTES);
  }

  @Test
  void wholeObjectForRangeAnswers200WithEveryByte() {
    proxy.inject(Fault.wholeObjectForRange(), "GET");
    ResponseBytes<GetObjectResponse> r = ranged(client, "bytes=3-4");
    assertThat(r.response().sdkHttpResponse().statusCode()).isEqualTo(200);
    assertThat(r.response().contentRange()).isNull();
    assertThat(r.asByteArray()).isEqualTo(BYTES);
    proxy.clear();
    assertThat(ranged(client, "bytes=3-4").asByteArray())
        .isEqualTo(Arrays.copyOfRange(BYTES, 3, 5));
  }

  @Test
  void bodyFaultsLeaveOtherMethodsAlone() {
    proxy.inject(Fault.truncatedBody());
    S3Clients.put(client, BUCKET, "body-put", BYTES);
    assertThat(client.headObject(b -> b.bucket(BUCKET).key("body-put")).join().contentLength())
        .isEqualTo(BYTES.length);
  }

  private static ResponseBytes<GetObjectResponse> ranged(S3AsyncClient c, String range) {
    return c.getObject(
            b -> b.bucket(BUCKET).key("k").range(range), AsyncResponseTransformer.toBytes())
        .join();
  }

  private static S3Exception s3Failure(Runnable r) {
    Throwable t = catchThrowable(r::run);
    assertThat(t).isInstanceOf(CompletionException.class);
    assertThat(t.getCause()).isInstanceOf(S3Exception.class);
    return (S3Exception) t.getCause();
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }
}
