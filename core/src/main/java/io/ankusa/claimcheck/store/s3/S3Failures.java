package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * Classifies every failure of an S3 call as exactly one {@link Kind}; stateless and thread-safe.
 *
 * <p>By HTTP status code, never by the SDK's throttling heuristics (a 503 to HEAD has no body):
 *
 * <ul>
 *   <li>404 → {@code NOT_FOUND} only when S3 said so in its own words: the error code {@code
 *       NoSuchKey} (from the error body; a HEAD has none, and the SDK then makes {@code NoSuchKey}
 *       up from the status alone, so a HEAD's 404 counts only when it carries S3's {@code
 *       x-amz-request-id} header). Any other 404 — {@code NoSuchBucket} (a broken store), no error
 *       code (an ingress default backend or a wrong proxy path answering {@code 404 text/html}),
 *       another code — is {@code UNAVAILABLE}: it must never let a read declare a claim gone;
 *   <li>403 → {@code FORBIDDEN};
 *   <li>412 to a put → {@code ALREADY_EXISTS} (its {@code If-None-Match: *} failed);
 *   <li>429, 503, or any other status carrying {@code Retry-After} → {@code THROTTLED}, with the
 *       Retry-After when it is a number of seconds;
 *   <li>409 ({@code ConditionalRequestConflict}: a concurrent conditional write was in progress) →
 *       {@code UNAVAILABLE}: the key may or may not end up taken, so the writer tries again later
 *       or elsewhere rather than treating it as a collision;
 *   <li>any other status, timeouts, refused or reset connections, any other client-side error →
 *       {@code UNAVAILABLE}. This holds for either HTTP client: the CRT client's failures (its
 *       {@code HttpException}s, such as {@code AWS_IO_SOCKET_CONNECTION_REFUSED} or {@code
 *       AWS_ERROR_HTTP_CONNECTION_MANAGER_ACQUISITION_TIMEOUT}) reach us as the SDK's client
 *       exceptions like Netty's do, and are never read as a store's answer.
 * </ul>
 *
 * Messages name the operation, the store and the key; they carry the S3 error code and message but
 * never a credential.
 */
final class S3Failures {

  /** The store operations, for messages and for the put-only meaning of 412. */
  enum Op {
    PUT,
    GET,
    HEAD,
    DELETE
  }

  /** The header S3 (and S3-compatible servers) put on every answer of their own. */
  static final String REQUEST_ID = "x-amz-request-id";

  private S3Failures() {}

  /**
   * The {@link Error} behind {@code failure} (under completion wrappers), or null: an Error is
   * never classified, so it reaches the caller as itself.
   */
  static Error error(Throwable failure) {
    return StoreException.unwrap(failure) instanceof Error e ? e : null;
  }

  /** The {@link Error} behind {@code failure} if there is one, else its {@link #classify}. */
  static Throwable outcome(Throwable failure, Op op, String store, String key) {
    Error e = error(failure);
    return e != null ? e : classify(failure, op, store, key);
  }

  /** Returns the {@link StoreException} for {@code failure} of {@code op} on {@code key}. */
  static StoreException classify(Throwable failure, Op op, String store, String key) {
    Throwable t = StoreException.unwrap(failure);
    if (t instanceof StoreException se) {
      return se;
    }
    String where = op + " " + store + " key '" + key + "': ";
    if (t instanceof SdkServiceException se) {
      return classifyStatus(se, op, where);
    }
    if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException) {
      return new StoreException(Kind.UNAVAILABLE, where + "timed out: " + t.getMessage(), null, t);
    }
    return new StoreException(
        Kind.UNAVAILABLE, where + "could not answer: " + describe(t), null, t);
  }

  private static StoreException classifyStatus(SdkServiceException e, Op op, String where) {
    int status = e.statusCode();
    String code = errorCode(e);
    String what = where + "HTTP " + status + (code == null ? "" : " " + code) + message(e);
    Optional<String> retryAfterHeader = retryAfterHeader(e);
    if (status == 404) {
      return notFound(e, op, code, what);
    }
    if (status == 403) {
      return new StoreException(Kind.FORBIDDEN, what, null, e);
    }
    if (status == 412 && op == Op.PUT) {
      return new StoreException(Kind.ALREADY_EXISTS, what, null, e);
    }
    if (status == 429 || status == 503 || retryAfterHeader.isPresent()) {
      Duration retryAfter = retryAfterHeader.flatMap(S3Failures::parseRetryAfter).orElse(null);
      return new StoreException(
          Kind.THROTTLED,
          what + (retryAfter == null ? "" : " (Retry-After " + retryAfter.toSeconds() + " s)"),
          retryAfter,
          e);
    }
    return new StoreException(Kind.UNAVAILABLE, what, null, e);
  }

  private static StoreException notFound(SdkServiceException e, Op op, String code, String what) {
    if (op == Op.HEAD) {
      return header(e, REQUEST_ID).isPresent()
          ? new StoreException(Kind.NOT_FOUND, what, null, e)
          : new StoreException(
              Kind.UNAVAILABLE,
              what + " (a 404 without S3's " + REQUEST_ID + " header: not the store's answer)",
              null,
              e);
    }
    if ("NoSuchKey".equals(code)) {
      return new StoreException(Kind.NOT_FOUND, what, null, e);
    }
    if ("NoSuchBucket".equals(code)) {
      return new StoreException(Kind.UNAVAILABLE, what + " (the bucket does not exist)", null, e);
    }
    return new StoreException(
        Kind.UNAVAILABLE,
        what
            + (code == null
                ? " (a 404 without an S3 error code: not the store's answer; a proxy or ingress in the way?)"
                : " (not NoSuchKey)"),
        null,
        e);
  }

  /** Parses a Retry-After given in seconds; an HTTP-date or anything else is absent. */
  static Optional<Duration> parseRetryAfter(String value) {
    String v = value.trim();
    if (v.isEmpty() || v.length() > 9) {
      return Optional.empty();
    }
    for (int i = 0; i < v.length(); i++) {
      if (v.charAt(i) < '0' || v.charAt(i) > '9') {
        return Optional.empty();
      }
    }
    return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
  }

  private static Optional<String> retryAfterHeader(SdkServiceException e) {
    return header(e, "Retry-After");
  }

  private static Optional<String> header(SdkServiceException e, String name) {
    if (e instanceof AwsServiceException ae && ae.awsErrorDetails() != null) {
      SdkHttpResponse response = ae.awsErrorDetails().sdkHttpResponse();
      if (response != null) {
        return response.firstMatchingHeader(name);
      }
    }
    return Optional.empty();
  }

  private static String errorCode(SdkServiceException e) {
    if (e instanceof AwsServiceException ae) {
      AwsErrorDetails details = ae.awsErrorDetails();
      if (details != null && details.errorCode() != null && !details.errorCode().isBlank()) {
        return details.errorCode();
      }
    }
    return null;
  }

  private static String message(SdkServiceException e) {
    if (e instanceof AwsServiceException ae) {
      AwsErrorDetails details = ae.awsErrorDetails();
      if (details != null && details.errorMessage() != null && !details.errorMessage().isBlank()) {
        return ": " + details.errorMessage();
      }
    }
    return "";
  }

  private static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder(t.getClass().getSimpleName());
    if (t.getMessage() != null) {
      sb.append(": ").append(t.getMessage());
    }
    Throwable c = t.getCause();
    for (int depth = 0; c != null && c != t && depth < 3; depth++, c = c.getCause()) {
      sb.append(" <- ").append(c.getClass().getSimpleName());
      if (c.getMessage() != null) {
        sb.append(": ").append(c.getMessage());
      }
    }
    return sb.toString();
  }
}
