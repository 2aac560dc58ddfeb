package io.ankusa.claimcheck.store.s3;

import java.time.Duration;
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
 * too). The pool can hold several such connections at once (one per losing writer), and a retry
 * sent at once is often handed another of them before its close has been read (seen: a GET failing
 * on two in a row, then 30 racing writers failing four times in a row). So each retry waits a
 * moment first — 1 ms, then 2, 4, 8, 16 (half jittered) — which lets the client see the other
 * closes and drop those connections from the pool; up to {@link #MAX_ATTEMPTS} attempts, about 31
 * ms of waiting at most, all inside the call's one deadline. Sending it again is safe: GET and HEAD
 * are idempotent, and a put-if-absent that did land before its answer was lost comes back 412,
 * already exists.
 *
 * <p>Each HTTP client words it its own way: Netty's {@link #CLOSED_DURING_REQUEST}, the CRT
 * client's error {@code AWS_ERROR_HTTP_CONNECTION_CLOSED} ({@link #CRT_CONNECTION_CLOSED}, the
 * message of its {@code HttpException}), Apache 5's {@code NoHttpResponseException} ({@link
 * #APACHE_NO_RESPONSE}, under inline calls). Matched by message or class name, so this class needs
 * no client's classes. A refused connection, a reset, a timeout: one attempt, as before.
 */
final class StaleConnectionRetry {

  /** The Netty client's message for a connection closed under an unanswered request. */
  static final String CLOSED_DURING_REQUEST = "connection was closed during the request";

  /** The CRT client's message for AWS_ERROR_HTTP_CONNECTION_CLOSED. */
  static final String CRT_CONNECTION_CLOSED = "The connection has closed or is closing.";

  /**
   * Apache 5's exception (the blocking client of inline calls) for a connection the server closed
   * without an answer; named, so this class needs no Apache class.
   */
  static final String APACHE_NO_RESPONSE = "org.apache.hc.core5.http.NoHttpResponseException";

  /** Attempts per call: the first, and a retry for each of up to five closed connections. */
  static final int MAX_ATTEMPTS = 6;

  /** The first retry's wait; each further one doubles it, up to {@link #MAX_DELAY}. */
  static final Duration BASE_DELAY = Duration.ofMillis(1);

  /** The longest wait before a retry. */
  static final Duration MAX_DELAY = Duration.ofMillis(16);

  private StaleConnectionRetry() {}

  /** At most {@link #MAX_ATTEMPTS} attempts; each retry only after a closed connection. */
  static RetryStrategy strategy() {
    return StandardRetryStrategy.builder()
        .maxAttempts(MAX_ATTEMPTS)
        .retryOnException(StaleConnectionRetry::isClosedConnection)
        .treatAsThrottling(t -> false)
        .backoffStrategy(BackoffStrategy.exponentialDelayHalfJitter(BASE_DELAY, MAX_DELAY))
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
      if (t.getClass().getName().equals(APACHE_NO_RESPONSE)) {
        return true;
      }
      if (message != null
          && (message.contains(CLOSED_DURING_REQUEST) || message.contains(CRT_CONNECTION_CLOSED))) {
        return true;
      }
    }
    return false;
  }
}
