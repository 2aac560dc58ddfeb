package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;

/**
 * How a claim route answers: waiting for the library without holding a thread, the headers of a
 * claim (whole, a range, or none for HEAD) and the problem of a failure; stateless.
 */
final class ClaimAnswers {

  /** How long past the redeem's deadline to wait for the library's own deadline answer. */
  static final long GRACE_MS = 250;

  private ClaimAnswers() {}

  /** Runs {@code call}, waits for it asynchronously, and answers its value or its failure. */
  static <T> void answer(
      Exchange x,
      ClaimRef ref,
      long deadlineMs,
      Supplier<CompletableFuture<T>> call,
      Consumer<T> onValue) {
    CompletableFuture<T> f;
    try {
      f = call.get();
    } catch (ClaimCheckFailure e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.orTimeout(deadlineMs + GRACE_MS, TimeUnit.MILLISECONDS)
        .whenComplete(
            (value, error) -> {
              try {
                if (error != null) {
                  x.problem(failure(error, ref));
                } else {
                  onValue.accept(value);
                }
              } catch (RuntimeException e) {
                x.problem(Problem.about(503, "UNAVAILABLE", "answering failed: " + e, ref));
              }
            });
  }

  static void serve(Exchange x, ClaimRef ref, String etag, byte[] bytes) {
    ByteRange.Ask ask;
    try {
      ask = ByteRange.parse(x.header(HttpHeader.RANGE), bytes.length);
    } catch (ByteRange.BadRange e) {
      x.problem(Problem.about(416, "BAD_RANGE", e.getMessage(), ref));
      return;
    }
    ByteBuffer body = ByteBuffer.wrap(bytes);
    if (ask instanceof ByteRange.Part p) {
      body = ByteBuffer.wrap(bytes, (int) p.range().first(), (int) p.range().length());
    }
    ranged(x, ref, etag, ask, bytes.length, body);
  }

  /**
   * Answers {@code ask} of a claim of {@code size} bytes: {@code body} holds what is served (the
   * range, or the whole claim), null for the headers alone (HEAD).
   */
  static void ranged(
      Exchange x, ClaimRef ref, String etag, ByteRange.Ask ask, long size, ByteBuffer body) {
    immutable(x, etag);
    x.response().getHeaders().put(HttpHeader.ACCEPT_RANGES, "bytes");
    x.response().getHeaders().put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
    if (ask instanceof ByteRange.Unsatisfiable) {
      x.response().getHeaders().put(HttpHeader.CONTENT_RANGE, "bytes */" + size);
      x.problem(
          Problem.about(
              416, "BAD_RANGE", "the range lies outside the claim's " + size + " bytes", ref));
      return;
    }
    int status = 200;
    long length = size;
    if (ask instanceof ByteRange.Part p) {
      ByteRange r = p.range();
      x.response()
          .getHeaders()
          .put(HttpHeader.CONTENT_RANGE, "bytes " + r.first() + "-" + r.last() + "/" + size);
      status = 206;
      length = r.length();
    }
    x.response().getHeaders().put(HttpHeader.CONTENT_LENGTH, Long.toString(length));
    boolean send = body != null && !x.isHead();
    x.answer(status, send ? body : null, send ? length : 0);
  }

  /**
   * Starts a streamed {@code 200} of a whole claim of {@code size} bytes (its headers set): true
   * when this is the exchange's answer ({@link Exchange#begin}).
   */
  static boolean beginWhole(Exchange x, String etag, long size) {
    immutable(x, etag);
    var h = x.response().getHeaders();
    h.put(HttpHeader.ACCEPT_RANGES, "bytes");
    h.put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
    h.put(HttpHeader.CONTENT_LENGTH, Long.toString(size));
    return x.begin(200);
  }

  static void immutable(Exchange x, String etag) {
    x.response().getHeaders().put(HttpHeader.ETAG, etag);
    x.response().getHeaders().put(HttpHeader.CACHE_CONTROL, "private, max-age=31536000, immutable");
  }

  static Problem failure(Throwable error, ClaimRef ref) {
    Throwable e = error;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof ClaimCheckFailure f) {
      return Problem.of(f, ref);
    }
    if (e instanceof TimeoutException) {
      return Problem.about(503, "UNAVAILABLE", "no answer by the redeem's deadline", ref);
    }
    return Problem.about(503, "UNAVAILABLE", "redeem failed: " + e, ref);
  }
}
