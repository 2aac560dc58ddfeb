package io.ankusa.claimcheck.store.gcs;

import com.google.api.client.http.HttpResponseException;
import com.google.cloud.BaseServiceException;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * Classifies every failure of a Cloud Storage call as exactly one {@link Kind}; stateless and
 * thread-safe.
 *
 * <ul>
 *   <li>404 → {@code NOT_FOUND} only when GCS said so in its own words about this object: {@code No
 *       such object: <bucket>/<name>} (its JSON error's message, or a media download's text). A
 *       missing bucket ({@code The specified bucket does not exist}), a 404 page of a proxy or an
 *       ingress, or any other 404 is {@code UNAVAILABLE}: it must never let a read declare a claim
 *       gone;
 *   <li>401, 403 → {@code FORBIDDEN};
 *   <li>a put's 412 ({@code conditionNotMet}: its {@code ifGenerationMatch=0} failed, an object is
 *       there) → {@code ALREADY_EXISTS};
 *   <li>429 ({@code rateLimitExceeded}), or 503 with a {@code Retry-After} → {@code THROTTLED},
 *       with the Retry-After when it is a number of seconds;
 *   <li>anything else — other statuses, timeouts, refused or reset connections, a body the SDK
 *       could not read — → {@code UNAVAILABLE}.
 * </ul>
 *
 * Messages name the operation, the store and the key, with the status and GCS's reason, never a
 * credential (the SDK's own message is not shown).
 */
final class GcsFailures {

  /** The store operations, for messages and for the put-only meaning of 412. */
  enum Op {
    PUT,
    GET,
    HEAD,
    DELETE,
    LIST
  }

  private GcsFailures() {}

  /** The {@link Error} behind {@code failure}, else its {@link #classify}. */
  static Throwable outcome(Throwable failure, Op op, Target target, Exchange exchange) {
    Throwable t = StoreException.unwrap(failure);
    return t instanceof Error e ? e : classify(t, op, target, exchange);
  }

  /**
   * Returns the {@link StoreException} for {@code failure} of {@code op} on {@code target}; {@code
   * exchange} (may be null) is what the transport saw of the call's last answer.
   */
  static StoreException classify(Throwable failure, Op op, Target target, Exchange exchange) {
    Throwable t = StoreException.unwrap(failure);
    if (t instanceof StoreException se) {
      return se;
    }
    int status = status(t);
    if (status > 0) {
      String words = words(t, exchange, status);
      Optional<String> retryAfter = retryAfter(t, exchange, status);
      String reason = t instanceof BaseServiceException b ? b.getReason() : null;
      return byStatus(status, reason, words, retryAfter, op, target, t);
    }
    String where = target.where(op);
    if (timedOut(t)) {
      return new StoreException(Kind.UNAVAILABLE, where + "timed out", null, t);
    }
    return new StoreException(
        Kind.UNAVAILABLE, where + "could not answer: " + t.getClass().getSimpleName(), null, t);
  }

  /**
   * The outcome of a call the SDK reported as "absent" (a metadata GET's {@code null}, a DELETE's
   * {@code false}): {@code NOT_FOUND} when the last answer was GCS's own 404 for this object, else
   * {@code UNAVAILABLE}.
   */
  static StoreException absent(Op op, Target target, Exchange exchange) {
    int status = exchange == null ? -1 : exchange.status();
    if (status <= 0) {
      return new StoreException(
          Kind.UNAVAILABLE, target.where(op) + "the SDK said absent, but no answer was seen");
    }
    return byStatus(
        status,
        null,
        exchange.errorBody(),
        Optional.ofNullable(exchange.header("retry-after")),
        op,
        target,
        null);
  }

  static StoreException byStatus(
      int status,
      String reason,
      String words,
      Optional<String> retryAfter,
      Op op,
      Target target,
      Throwable cause) {
    String what = target.where(op) + "HTTP " + status + (reason == null ? "" : " " + reason);
    if (status == 404) {
      if (words.contains("No such object: " + target.bucket() + "/" + target.object())) {
        return new StoreException(Kind.NOT_FOUND, what, null, cause);
      }
      String why =
          words.contains("The specified bucket does not exist")
              ? " (the bucket does not exist)"
              : " (a 404 without GCS's 'No such object' answer: not the store's answer; a proxy"
                  + " or ingress in the way?)";
      return new StoreException(Kind.UNAVAILABLE, what + why, null, cause);
    }
    if (status == 401 || status == 403) {
      return new StoreException(Kind.FORBIDDEN, what, null, cause);
    }
    if (status == 412 && op == Op.PUT) {
      return new StoreException(Kind.ALREADY_EXISTS, what, null, cause);
    }
    if (status == 429 || (status == 503 && retryAfter.isPresent())) {
      Duration after = retryAfter.flatMap(GcsFailures::parseRetryAfter).orElse(null);
      return new StoreException(
          Kind.THROTTLED,
          what + (after == null ? "" : " (Retry-After " + after.toSeconds() + " s)"),
          after,
          cause);
    }
    return new StoreException(Kind.UNAVAILABLE, what, null, cause);
  }

  /**
   * The HTTP status behind {@code t}: the SDK's code, else a raw HTTP failure's; 0 for none (the
   * call never had an answer, or failed on one it judged bad itself).
   */
  static int status(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof BaseServiceException b && b.getCode() > 0) {
        return b.getCode();
      }
      if (c instanceof HttpResponseException h) {
        return h.getStatusCode();
      }
    }
    return 0;
  }

  /** GCS's words: the error body the transport saw (for this status), and the SDK's message. */
  private static String words(Throwable t, Exchange exchange, int status) {
    StringBuilder b = new StringBuilder();
    if (exchange != null && exchange.status() == status) {
      b.append(exchange.errorBody()).append('\n');
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null) {
        b.append(c.getMessage()).append('\n');
      }
      if (c instanceof HttpResponseException h && h.getContent() != null) {
        b.append(h.getContent()).append('\n');
      }
    }
    return b.toString();
  }

  private static Optional<String> retryAfter(Throwable t, Exchange exchange, int status) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof HttpResponseException h && h.getHeaders().getRetryAfter() != null) {
        return Optional.of(h.getHeaders().getRetryAfter());
      }
    }
    return exchange != null && exchange.status() == status
        ? Optional.ofNullable(exchange.header("retry-after"))
        : Optional.empty();
  }

  private static boolean timedOut(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof TimeoutException
          || c instanceof SocketTimeoutException
          || c instanceof org.apache.http.conn.ConnectTimeoutException
          || (c instanceof InterruptedIOException && !(c instanceof java.io.EOFException))) {
        return true;
      }
    }
    return false;
  }

  /** Parses a Retry-After given in seconds; an HTTP-date or anything else is absent. */
  static Optional<Duration> parseRetryAfter(String value) {
    String v = value.trim();
    if (v.isEmpty() || v.length() > 9 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
  }

  /**
   * The object a call is about, for messages and for GCS's own words; immutable.
   *
   * @param store the store's description
   * @param key the claim-check key
   * @param bucket the bucket
   * @param object the object name (the store's prefix and the key)
   */
  record Target(String store, String key, String bucket, String object) {
    String where(Op op) {
      return op + " " + store + " key '" + key + "': ";
    }
  }
}
