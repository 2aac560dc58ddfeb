package io.ankusa.claimcheck.store.azure;

import com.azure.core.exception.HttpResponseException;
import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpResponse;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobStorageException;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * Classifies every failure of an Azure Blob call as exactly one {@link Kind}; stateless and
 * thread-safe.
 *
 * <ul>
 *   <li>404 → {@code NOT_FOUND} only when the service said so in its own words: the error code
 *       {@code BlobNotFound} (the {@code x-ms-error-code} header, which Azure sends on every answer
 *       of its own, HEAD included). {@code ContainerNotFound} (a broken store), a 404 without an
 *       error code (an ingress or a proxy answering {@code text/html}) or with another code is
 *       {@code UNAVAILABLE}: it must never let a read declare a claim gone;
 *   <li>403 → {@code FORBIDDEN};
 *   <li>a put's 409 {@code BlobAlreadyExists} or 412 (its {@code If-None-Match: *} failed) → {@code
 *       ALREADY_EXISTS}; any other 409 (a lease, a conflicting operation) → {@code UNAVAILABLE}, so
 *       the writer tries again later or elsewhere;
 *   <li>429, 503 {@code ServerBusy}, or any status carrying {@code Retry-After} → {@code
 *       THROTTLED}, with the Retry-After when it is a number of seconds;
 *   <li>anything else — other statuses, timeouts, refused or reset connections, a body the SDK
 *       could not read — → {@code UNAVAILABLE}.
 * </ul>
 *
 * Messages name the operation, the store and the key, with Azure's error code, never a credential
 * (the SDK's own message, which may quote a request URL with a SAS, is not shown).
 */
final class AzureFailures {

  /** The store operations, for messages and for the put-only meaning of 409/412. */
  enum Op {
    PUT,
    GET,
    HEAD,
    DELETE,
    LIST
  }

  /** The header Azure Storage names its error code in, on every error answer of its own. */
  static final HttpHeaderName ERROR_CODE = HttpHeaderName.fromString("x-ms-error-code");

  private AzureFailures() {}

  /** The {@link Error} behind {@code failure}, else its {@link #classify}. */
  static Throwable outcome(Throwable failure, Op op, String store, String key) {
    Throwable t = StoreException.unwrap(failure);
    return t instanceof Error e ? e : classify(t, op, store, key);
  }

  /** Returns the {@link StoreException} for {@code failure} of {@code op} on {@code key}. */
  static StoreException classify(Throwable failure, Op op, String store, String key) {
    Throwable t = StoreException.unwrap(failure);
    if (t instanceof StoreException se) {
      return se;
    }
    String where = op + " " + store + " key '" + key + "': ";
    if (t instanceof HttpResponseException he && he.getResponse() != null) {
      return classifyStatus(he, op, where);
    }
    if (t instanceof TimeoutException) {
      return new StoreException(Kind.UNAVAILABLE, where + "timed out", null, t);
    }
    return new StoreException(
        Kind.UNAVAILABLE, where + "could not answer: " + t.getClass().getSimpleName(), null, t);
  }

  private static StoreException classifyStatus(HttpResponseException e, Op op, String where) {
    HttpResponse response = e.getResponse();
    int status = response.getStatusCode();
    String code = errorCode(e);
    String what = where + "HTTP " + status + (code == null ? "" : " " + code);
    Optional<String> retryAfter =
        Optional.ofNullable(response.getHeaderValue(HttpHeaderName.RETRY_AFTER));
    if (status == 404) {
      if (BlobErrorCode.BLOB_NOT_FOUND.toString().equals(code)) {
        return new StoreException(Kind.NOT_FOUND, what, null, e);
      }
      return new StoreException(
          Kind.UNAVAILABLE,
          what
              + (code == null
                  ? " (a 404 without an Azure error code: not the store's answer; a proxy or"
                      + " ingress in the way?)"
                  : BlobErrorCode.CONTAINER_NOT_FOUND.toString().equals(code)
                      ? " (the container does not exist)"
                      : " (not BlobNotFound)"),
          null,
          e);
    }
    if (status == 403) {
      return new StoreException(Kind.FORBIDDEN, what, null, e);
    }
    if (op == Op.PUT
        && (status == 412
            || (status == 409 && BlobErrorCode.BLOB_ALREADY_EXISTS.toString().equals(code)))) {
      return new StoreException(Kind.ALREADY_EXISTS, what, null, e);
    }
    if (status == 429
        || (status == 503 && BlobErrorCode.SERVER_BUSY.toString().equals(code))
        || retryAfter.isPresent()) {
      Duration after = retryAfter.flatMap(AzureFailures::parseRetryAfter).orElse(null);
      return new StoreException(
          Kind.THROTTLED,
          what + (after == null ? "" : " (Retry-After " + after.toSeconds() + " s)"),
          after,
          e);
    }
    return new StoreException(Kind.UNAVAILABLE, what, null, e);
  }

  /** Azure's own error code: the {@code x-ms-error-code} header, else the parsed error body's. */
  private static String errorCode(HttpResponseException e) {
    String header = e.getResponse().getHeaderValue(ERROR_CODE);
    if (header != null && !header.isBlank()) {
      return header.trim();
    }
    if (e instanceof BlobStorageException be && be.getErrorCode() != null) {
      String c = be.getErrorCode().toString();
      return c.isBlank() ? null : c;
    }
    return null;
  }

  /** Parses a Retry-After given in seconds; an HTTP-date or anything else is absent. */
  static Optional<Duration> parseRetryAfter(String value) {
    String v = value.trim();
    if (v.isEmpty() || v.length() > 9 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
  }
}
