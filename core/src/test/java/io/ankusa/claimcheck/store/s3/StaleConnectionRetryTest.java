package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.crt.CRT;
import software.amazon.awssdk.crt.http.HttpException;
import software.amazon.awssdk.http.crt.internal.CrtUtils;
import software.amazon.awssdk.services.s3.model.S3Exception;

class StaleConnectionRetryTest {

  private static SdkClientException wrapped(Throwable cause) {
    return SdkClientException.builder()
        .message("Unable to execute HTTP request: " + cause.getMessage())
        .cause(cause)
        .build();
  }

  @Test
  void aConnectionClosedUnderAnUnansweredRequestIsRetried() {
    IOException closed =
        new IOException(
            "The connection was closed during the request. The"
                + " request will usually succeed on a retry, but if it does not: ...");
    assertThat(StaleConnectionRetry.isClosedConnection(wrapped(closed))).isTrue();
    assertThat(StaleConnectionRetry.isClosedConnection(closed)).isTrue();
  }

  /**
   * The CRT client's own exception (its message comes from the native library), as the SDK wraps
   * it.
   */
  private static Throwable crt(String errorName) {
    for (int code = 1; code < 0x4000; code++) {
      if (errorName.equals(CRT.awsErrorName(code))) {
        HttpException e = new HttpException(code);
        return wrapped(
            CrtUtils.wrapWithIoExceptionIfRetryable(e) instanceof IOException io ? io : e);
      }
    }
    throw new AssertionError("no CRT error named " + errorName);
  }

  @Test
  void theCrtClientsClosedConnectionIsRetried() {
    assertThat(StaleConnectionRetry.isClosedConnection(crt("AWS_ERROR_HTTP_CONNECTION_CLOSED")))
        .isTrue();
  }

  @Test
  void theCrtClientsOtherTransportFailuresGetOneAttempt() {
    for (String name :
        new String[] {
          "AWS_IO_SOCKET_CONNECTION_REFUSED",
          "AWS_IO_SOCKET_TIMEOUT",
          "AWS_IO_SOCKET_CLOSED",
          "AWS_IO_BROKEN_PIPE",
          "AWS_ERROR_HTTP_CONNECTION_MANAGER_ACQUISITION_TIMEOUT",
          "AWS_ERROR_HTTP_RESPONSE_FIRST_BYTE_TIMEOUT"
        }) {
      assertThat(StaleConnectionRetry.isClosedConnection(crt(name))).as(name).isFalse();
    }
  }

  @Test
  void everythingElseGetsOneAttempt() {
    assertThat(
            StaleConnectionRetry.isClosedConnection(
                wrapped(new ConnectException("Connection refused"))))
        .isFalse();
    assertThat(
            StaleConnectionRetry.isClosedConnection(
                wrapped(new IOException("Connection reset by peer"))))
        .isFalse();
    assertThat(StaleConnectionRetry.isClosedConnection(ApiCallTimeoutException.create(1000)))
        .isFalse();
    assertThat(
            StaleConnectionRetry.isClosedConnection(
                S3Exception.builder().statusCode(503).message("SlowDown").build()))
        .isFalse();
    assertThat(StaleConnectionRetry.isClosedConnection(new IOException((String) null))).isFalse();
  }

  @Test
  void theStrategyAllowsARetryForEachOfSeveralStalePooledConnections() {
    assertThat(StaleConnectionRetry.strategy().maxAttempts()).isEqualTo(6);
  }
}
