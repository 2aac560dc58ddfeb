package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
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
    IOException closed = new IOException("The connection was closed during the request. The"
        + " request will usually succeed on a retry, but if it does not: ...");
    assertThat(StaleConnectionRetry.isClosedConnection(wrapped(closed))).isTrue();
    assertThat(StaleConnectionRetry.isClosedConnection(closed)).isTrue();
  }

  @Test
  void everythingElseGetsOneAttempt() {
    assertThat(StaleConnectionRetry.isClosedConnection(
        wrapped(new ConnectException("Connection refused")))).isFalse();
    assertThat(StaleConnectionRetry.isClosedConnection(
        wrapped(new IOException("Connection reset by peer")))).isFalse();
    assertThat(StaleConnectionRetry.isClosedConnection(
        ApiCallTimeoutException.create(1000))).isFalse();
    assertThat(StaleConnectionRetry.isClosedConnection(
        S3Exception.builder().statusCode(503).message("SlowDown").build())).isFalse();
    assertThat(StaleConnectionRetry.isClosedConnection(new IOException((String) null))).isFalse();
  }

  @Test
  void theStrategyAllowsTwoAttempts() {
    assertThat(StaleConnectionRetry.strategy().maxAttempts()).isEqualTo(2);
  }
}
