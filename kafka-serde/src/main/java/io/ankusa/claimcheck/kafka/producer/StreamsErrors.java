package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.kafka.ClaimCheckException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.common.errors.RetriableException;

/**
 * How the Streams mode of {@link ClaimCheckProducer} reports a failed check-in: one that may
 * succeed later ({@code UNAVAILABLE}) reaches the callback as a {@link RetriableException} whose
 * cause is the failure, so Streams' production exception handler sees it as retriable, as it sees a
 * broker's; stateless and thread-safe.
 */
final class StreamsErrors {

  private StreamsErrors() {}

  /** {@code callback} seeing a retriable check-in failure as a {@link RetriableException}. */
  static Callback retriable(Callback callback) {
    if (callback == null) {
      return null;
    }
    return (metadata, e) -> callback.onCompletion(metadata, asRetriable(e));
  }

  /** {@code e}, or a {@link RetriableException} around it when its check-in may succeed later. */
  static Exception asRetriable(Exception e) {
    if (e == null || e instanceof RetriableException) {
      return e;
    }
    Throwable t = e;
    while (t != null && !(t instanceof ClaimCheckException)) {
      t = t.getCause();
    }
    return t instanceof ClaimCheckException c && c.isRetriable() ? new CheckInUnavailable(e) : e;
  }

  /** A check-in that may succeed if tried again: Streams' handler retries it. */
  static final class CheckInUnavailable extends RetriableException {
    private static final long serialVersionUID = 1L;

    CheckInUnavailable(Exception cause) {
      super("check-in unavailable, retriable: " + cause.getMessage(), cause);
    }
  }
}
