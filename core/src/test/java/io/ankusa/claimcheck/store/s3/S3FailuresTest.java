package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.s3.S3Failures.Op;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.crt.CRT;
import software.amazon.awssdk.crt.http.HttpException;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.crt.internal.CrtUtils;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class S3FailuresTest {

  private static final String STORE = "s3://bucket/prefix";

  private static S3Exception s3(int status, String code, String retryAfter) {
    return s3(status, code, retryAfter, null);
  }

  private static S3Exception s3(int status, String code, String retryAfter, String requestId) {
    SdkHttpResponse.Builder http = SdkHttpResponse.builder().statusCode(status);
    if (retryAfter != null) {
      http.putHeader("Retry-After", retryAfter);
    }
    if (requestId != null) {
      http.putHeader("x-amz-request-id", requestId);
    }
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .message(code == null ? null : code + " message")
            .awsErrorDetails(
                AwsErrorDetails.builder()
                    .errorCode(code)
                    .errorMessage(code == null ? null : code + " message")
                    .sdkHttpResponse(http.build())
                    .build())
            .build();
  }

  private static StoreException classify(Throwable t, Op op) {
    return S3Failures.classify(t, op, STORE, "tenant/abc");
  }

  @Test
  void anErrorIsPassedOnAsItselfNeverClassifiedAsUnavailable() {
    OutOfMemoryError oom = new OutOfMemoryError("planted");
    assertThat(S3Failures.outcome(new CompletionException(oom), Op.GET, STORE, "tenant/abc"))
        .isSameAs(oom);
    assertThat(S3Failures.error(new CompletionException(oom))).isSameAs(oom);
    assertThat(S3Failures.error(new ConnectException("refused"))).isNull();
    assertThat(S3Failures.outcome(new ConnectException("refused"), Op.GET, STORE, "tenant/abc"))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE));
  }

  @Test
  void notFoundIs404() {
    assertThat(classify(s3(404, "NoSuchKey", null), Op.GET).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(classify(s3(404, null, null, "4442587FB7D0A2F9"), Op.HEAD).kind())
        .isEqualTo(Kind.NOT_FOUND);
    assertThat(classify(s3(404, "NoSuchKey", null, "4442587FB7D0A2F9"), Op.HEAD).kind())
        .isEqualTo(Kind.NOT_FOUND);
    // The exception class alone is not S3's words: the SDK picks it for a bodiless 404 too.
    NoSuchKeyException sdk =
        NoSuchKeyException.builder()
            .statusCode(404)
            .message("The specified key does not exist.")
            .build();
    assertThat(classify(sdk, Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void a404NotInS3sOwnWordsIsUnavailable() {
    // No error code: an ingress default backend or a wrong proxy path, not the store.
    StoreException noCode = classify(s3(404, null, null, "4442587FB7D0A2F9"), Op.GET);
    assertThat(noCode.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(noCode).hasMessageContaining("without an S3 error code");
    assertThat(classify(s3(404, "NoSuchUpload", null), Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(s3(404, "NoSuchBucket", null), Op.DELETE).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    // A HEAD has no body, and the SDK names any 404 of it NoSuchKey: only S3's header counts.
    StoreException headWithoutRequestId = classify(s3(404, "NoSuchKey", null), Op.HEAD);
    assertThat(headWithoutRequestId.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(headWithoutRequestId).hasMessageContaining("x-amz-request-id");
    NoSuchKeyException synthesized = NoSuchKeyException.builder().statusCode(404).build();
    assertThat(classify(synthesized, Op.HEAD).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aMissingBucketIsUnavailableNotNotFound() {
    StoreException e = classify(s3(404, "NoSuchBucket", null), Op.GET);
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e).hasMessageContaining("bucket does not exist");
  }

  @Test
  void forbiddenIs403() {
    assertThat(classify(s3(403, "AccessDenied", null), Op.PUT).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(classify(s3(403, null, null), Op.HEAD).kind()).isEqualTo(Kind.FORBIDDEN);
  }

  @Test
  void throttledIs429Or503OrAnyRetryAfter() {
    StoreException slowDown = classify(s3(503, "SlowDown", "7"), Op.GET);
    assertThat(slowDown.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(slowDown.retryAfter()).hasValue(Duration.ofSeconds(7));

    StoreException headNoBody = classify(s3(503, null, null), Op.HEAD);
    assertThat(headNoBody.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(headNoBody.retryAfter()).isEmpty();

    assertThat(classify(s3(429, null, null), Op.PUT).kind()).isEqualTo(Kind.THROTTLED);

    StoreException retryAfterOn500 = classify(s3(500, "InternalError", "3"), Op.GET);
    assertThat(retryAfterOn500.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(retryAfterOn500.retryAfter()).hasValue(Duration.ofSeconds(3));

    StoreException dated = classify(s3(503, "SlowDown", "Wed, 21 Oct 2015 07:28:00 GMT"), Op.GET);
    assertThat(dated.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(dated.retryAfter()).isEmpty();
  }

  @Test
  void preconditionFailedIsACollisionOnlyForPut() {
    assertThat(classify(s3(412, "PreconditionFailed", null), Op.PUT).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(classify(s3(412, "PreconditionFailed", null), Op.GET).kind())
        .isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aConditionalWriteConflictIsUnavailable() {
    assertThat(classify(s3(409, "ConditionalRequestConflict", null), Op.PUT).kind())
        .isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void otherStatusesTimeoutsAndConnectionFailuresAreUnavailable() {
    assertThat(classify(s3(500, "InternalError", null), Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(s3(502, null, null), Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(s3(400, "BadRequest", null), Op.PUT).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(ApiCallTimeoutException.create(1000), Op.GET).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(ApiCallAttemptTimeoutException.create(1000), Op.PUT).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    SdkClientException refused =
        SdkClientException.create(
            "Unable to execute HTTP request", new ConnectException("Connection refused"));
    StoreException e = classify(refused, Op.GET);
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e).hasMessageContaining("Connection refused");
    assertThat(
            classify(
                    SdkClientException.create("reset", new IOException("Connection reset")), Op.PUT)
                .kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(new IllegalStateException("bug"), Op.DELETE).kind())
        .isEqualTo(Kind.UNAVAILABLE);
  }

  /**
   * The CRT HTTP client's transport failures, built as the SDK builds them (its HttpException,
   * messages from the native library, wrapped by the SDK's CrtUtils then SdkClientException): all
   * UNAVAILABLE, never a final answer, and the message says what happened.
   */
  @Test
  void theCrtClientsTransportFailuresAreUnavailable() {
    Map<String, String> seen = new java.util.TreeMap<>();
    for (int code = 1; code < 0x4000; code++) {
      String name = CRT.awsErrorName(code);
      if (name != null
          && (name.startsWith("AWS_IO_SOCKET")
              || name.startsWith("AWS_ERROR_HTTP")
              || name.startsWith("AWS_IO_TLS")
              || name.equals("AWS_IO_BROKEN_PIPE")
              || name.startsWith("AWS_IO_DNS"))) {
        Throwable t =
            SdkClientException.create(
                "Unable to execute HTTP request: x",
                CrtUtils.wrapCrtException(new HttpException(code)));
        for (Op op : Op.values()) {
          StoreException e = classify(t, op);
          assertThat(e.kind()).as("%s %s", name, op).isEqualTo(Kind.UNAVAILABLE);
          assertThat(e).hasMessageContaining(CRT.awsErrorString(code));
        }
        seen.put(name, CRT.awsErrorString(code));
      }
    }
    assertThat(seen)
        .containsKeys(
            "AWS_IO_SOCKET_CONNECTION_REFUSED",
            "AWS_IO_SOCKET_TIMEOUT",
            "AWS_ERROR_HTTP_CONNECTION_CLOSED",
            "AWS_ERROR_HTTP_CONNECTION_MANAGER_ACQUISITION_TIMEOUT",
            "AWS_ERROR_HTTP_RESPONSE_FIRST_BYTE_TIMEOUT");
  }

  @Test
  void wrappersAreUnwrappedAndStoreExceptionsKept() {
    assertThat(classify(new CompletionException(s3(403, "AccessDenied", null)), Op.GET).kind())
        .isEqualTo(Kind.FORBIDDEN);
    StoreException own = new StoreException(Kind.NOT_FOUND, "x");
    assertThat(classify(new CompletionException(own), Op.GET)).isSameAs(own);
  }

  @Test
  void messagesNameOperationStoreKeyAndStatus() {
    StoreException e = classify(s3(503, "SlowDown", "2"), Op.PUT);
    assertThat(e)
        .hasMessageContaining("THROTTLED")
        .hasMessageContaining("PUT")
        .hasMessageContaining(STORE)
        .hasMessageContaining("tenant/abc")
        .hasMessageContaining("503")
        .hasMessageContaining("SlowDown")
        .hasMessageContaining("Retry-After 2 s");
    assertThat(e.getCause()).isInstanceOf(S3Exception.class);
  }

  @Test
  void retryAfterParsesSecondsOnly() {
    assertThat(S3Failures.parseRetryAfter(" 12 ")).hasValue(Duration.ofSeconds(12));
    assertThat(S3Failures.parseRetryAfter("0")).hasValue(Duration.ZERO);
    assertThat(S3Failures.parseRetryAfter("-1")).isEmpty();
    assertThat(S3Failures.parseRetryAfter("1.5")).isEmpty();
    assertThat(S3Failures.parseRetryAfter("")).isEmpty();
    assertThat(S3Failures.parseRetryAfter("99999999999999999999")).isEmpty();
  }
}
