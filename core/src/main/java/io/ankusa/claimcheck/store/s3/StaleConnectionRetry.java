package io.ankusa.claimcheck.store.s3;

import software.amazon.awssdk.retries.StandardRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;

/**
 * The only retries the S3 client makes itself: a request sent on a pooled connection that the
 * server had already closed; stateless and thread-safe.
 *
 * <p>Every other failure gets exactly one attempt, so the writer's failover and the reader's limit
 * see what the store did. This one says nothing about the store: S3Proxy (Jetty) closes a
 * keep-alive connection after answering a losing conditional PUT with 412 before reading its body,
 * and a request the client had already put on that connection fails with "the connection was closed
 * during the request" (3 of 300 racing writers on one client; a GET sharing the client can meet it
 * too). The pool can hold several such connections at once, and a second attempt may be handed
 * another one of them (seen in CI: a GET failed twice in a row on a client whose pool S3Proxy had
 * just closed), so up to {@link #MAX_ATTEMPTS} attempts, all inside the call's one deadline.
 * Sending it again at once is safe: GET and HEAD are idempotent, and a put-if-absent that did land
 * before its answer was lost comes back 412, already exists.
 *
 * <p>Each HTTP client words it its own way: Netty's {@link #CLOSED_DURING_REQUEST}, the CRT
 * client's error {@code AWS_ERROR_HTTP_CONNECTION_CLOSED} ({@link #CRT_CONNECTION_CLOSED}, the
 * message of its {@code HttpException}). Matched by message, so this class needs neither client's
 * classes. A refused connection, a reset, a timeout: one attempt, as before.
 */
final class StaleConnectionRetry {

  /** The Netty client's message for a connection closed under an unanswered request. */
  static final String CLOSED_DURING_REQUEST = "connection was closed during the request";

  /** The CRT client's message for AWS_ERROR_HTTP_CONNECTION_CLOSED. */
  static final String CRT_CONNECTION_CLOSED = "The connection has closed or is closing.";

  /** Attempts per call: the first, and a retry for each of up to three closed connections. */
  static final int MAX_ATTEMPTS = 4;

  private StaleConnectionRetry() {}

  /** At most {@link #MAX_ATTEMPTS} attempts; each retry only after a closed connection, at once. */
  static RetryStrategy strategy() {
    return StandardRetryStrategy.builder()
        .maxAttempts(MAX_ATTEMPTS)
        .retryOnException(StaleConnectionRetry::isClosedConnection)
        .treatAsThrottling(t -> false)
        .backoffStrategy(BackoffStrategy.retryImmediately())
        .throttlingBackoffStrategy(BackoffStrategy.retryImmediately())
        .circuitBreakerEnabled(false)
        .useClientDefaults(false)
        .build();
  }

  /** Whether {@code failure} (or a cause) is a connection closed under an unanswered request. */
  static boolean isClosedConnection(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
      String message = t.getMessage();
      if (message != null
          && (message.contains(CLOSED_DURING_REQUEST) || message.contains(CRT_CONNECTION_CLOSED))) {
        return true;
      }
    }
    return false;
  }
}
