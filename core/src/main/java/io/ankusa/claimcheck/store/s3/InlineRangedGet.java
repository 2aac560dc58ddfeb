package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.s3.S3Failures.Op;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * A ranged GET of the S3 store performed on the calling thread ({@link
 * io.ankusa.claimcheck.store.InlineCalls}) by the rules of the asynchronous one; stateless between
 * calls, so thread-safe.
 *
 * <p>The same answers as {@code S3ClaimStore}'s asynchronous read: the bytes checked by {@link
 * RangeResponses}; a malformed answer asked again once within the call's budget, then {@code
 * UNAVAILABLE}; a 416 is an empty answer; every failure classified by {@link S3Failures}. Each call
 * is bounded by the smaller of the store's timeout and what the calling thread allows; when the
 * thread's allowance is what ended the call (its caller's deadline came first) and the store's own
 * timeout has time left, the read goes on asynchronously for that time, so a late answer still
 * reaches the reader's cache and the caller's retry finds it, as it would had the read never run
 * inline.
 */
final class InlineRangedGet {

  /** The asynchronous rest of a read: {@code rest} of its budget, after {@code firstProblem}. */
  interface Rest {
    CompletableFuture<byte[]> ask(Duration rest, String firstProblem);
  }

  private final InlineS3 inline;
  private final Ticker ticker;
  private final String description;
  private final long minInlineNanos;

  InlineRangedGet(InlineS3 inline, Ticker ticker, String description, long minInlineNanos) {
    this.inline = inline;
    this.ticker = ticker;
    this.description = description;
    this.minInlineNanos = minInlineNanos;
  }

  /**
   * Reads {@code [offset, offset + length)} of {@code objectKey} (the store's {@code key}) within
   * {@code budget} from {@code started}, inline for at most {@code allowedNanos} from {@code
   * started}; an already completed future unless the rest went asynchronous through {@code rest}.
   */
  CompletableFuture<byte[]> run(
      String objectKey,
      String key,
      long offset,
      int length,
      Duration budget,
      long started,
      long allowedNanos,
      Rest rest) {
    String firstProblem = null;
    for (int attempt = 0; attempt < 2; attempt++) {
      Duration t = attempt == 0 ? budget : S3ClaimStore.remaining(ticker, budget, started);
      if (t == null) {
        return CompletableFuture.failedFuture(
            unavailable(
                key,
                "a malformed answer (" + firstProblem + ") and no time left to ask" + " again",
                null));
      }
      long callerLeft = allowedNanos - (ticker.read() - started);
      boolean callerBound = callerLeft < t.toNanos();
      if (callerBound && callerLeft < minInlineNanos) {
        return goOn(key, budget, started, firstProblem, rest);
      }
      RangeBody.Answer answer;
      try {
        answer =
            inline.get(objectKey, offset, length, callerBound ? Duration.ofNanos(callerLeft) : t);
      } catch (RuntimeException | Error failure) {
        if (isRangeNotSatisfiable(failure)) {
          return CompletableFuture.completedFuture(new byte[0]); // at or past the end
        }
        if (callerBound && failure instanceof ApiCallTimeoutException) {
          return goOn(key, budget, started, firstProblem, rest);
        }
        return CompletableFuture.failedFuture(
            S3Failures.outcome(failure, Op.GET, description, key));
      }
      try {
        GetObjectResponse r = answer.response();
        return CompletableFuture.completedFuture(
            RangeResponses.check(
                r.sdkHttpResponse().statusCode(),
                answer.kept(),
                answer.bodyBytes(),
                r.contentRange(),
                r.contentLength(),
                offset,
                length));
      } catch (IllegalStateException bad) {
        if (firstProblem != null) {
          return CompletableFuture.failedFuture(
              unavailable(
                  key,
                  "answered a ranged read wrongly twice ("
                      + firstProblem
                      + "; then "
                      + bad.getMessage()
                      + ")",
                  bad));
        }
        firstProblem = bad.getMessage();
      }
    }
    throw new AssertionError("a third attempt is never made");
  }

  /** The caller's allowance ran out first: the rest of the store's budget, asynchronously. */
  private CompletableFuture<byte[]> goOn(
      String key, Duration budget, long started, String firstProblem, Rest rest) {
    Duration left = S3ClaimStore.remaining(ticker, budget, started);
    if (left == null) {
      return CompletableFuture.failedFuture(unavailable(key, "timed out (" + budget + ")", null));
    }
    return rest.ask(left, firstProblem);
  }

  private StoreException unavailable(String key, String what, Throwable cause) {
    return new StoreException(
        Kind.UNAVAILABLE, Op.GET + " " + description + " key '" + key + "': " + what, null, cause);
  }

  private static boolean isRangeNotSatisfiable(Throwable failure) {
    return failure instanceof SdkServiceException se && se.statusCode() == 416;
  }
}
