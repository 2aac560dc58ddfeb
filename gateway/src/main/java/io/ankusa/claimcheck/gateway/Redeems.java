package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;

/**
 * {@code GET}/{@code HEAD /v1/claims/{ref}} and {@code GET /v1/refs/{ref}}: a ref the caller's
 * token may read, redeemed through the shared reader without holding a thread while it waits;
 * thread-safe (no state of its own).
 *
 * <p>Everything a ref alone decides is answered before any store request: its tenant against the
 * token (403), the read limit (413), {@code If-None-Match} (304: a claim never changes, so a
 * matching checksum means the caller holds these bytes). The claim is then redeemed whole, bounded
 * by {@code claimcheck.read.max.bytes}, and a range is cut from it: streaming ranged store reads
 * are not built yet. {@code HEAD} redeems too (through the cache: a GET after it is a cache hit),
 * so its status is the one a GET would get.
 */
final class Redeems {

  /** How long past the redeem's deadline to wait for the library's own deadline answer. */
  private static final long GRACE_MS = 250;

  private final ClaimCheck cc;
  private final long readDeadlineMs;
  private final long readMaxBytes;

  Redeems(ClaimCheck cc) {
    this.cc = cc;
    this.readDeadlineMs = cc.config().readDeadline().toMillis();
    this.readMaxBytes = cc.config().readMaxBytes();
  }

  /** Answers a claim's bytes (or the headers of them, for HEAD). */
  void claim(Exchange x, Grant grant, ClaimRef ref) {
    if (refused(x, grant, ref)) {
      return;
    }
    long size = Math.max(ref.length(), (long) ref.rawLength());
    if (size > readMaxBytes) {
      x.problem(
          Problem.about(
              413,
              "REFUSED",
              "claim of "
                  + size
                  + " bytes exceeds "
                  + ClaimCheckConfig.READ_MAX_BYTES
                  + " ("
                  + readMaxBytes
                  + "); this gateway redeems whole claims in memory (streaming is not built yet)",
              ref));
      return;
    }
    String etag = RefPath.etag(ref);
    String inm = x.header(HttpHeader.IF_NONE_MATCH);
    if (inm != null && matches(inm, etag)) {
      immutable(x, etag);
      x.answer(304, null, 0);
      return;
    }
    long deadlineMs;
    try {
      deadlineMs = deadlineMs(x.header(GatewayHandler.DEADLINE_HEADER));
    } catch (IllegalArgumentException e) {
      x.problem(Problem.about(400, "BAD_REQUEST", e.getMessage(), ref));
      return;
    }
    long deadline = cc.ticker().read() + TimeUnit.MILLISECONDS.toNanos(deadlineMs);
    CompletableFuture<byte[]> f;
    try {
      f = cc.redeem(ref, deadline);
    } catch (ClaimCheckFailure e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.orTimeout(deadlineMs + GRACE_MS, TimeUnit.MILLISECONDS)
        .whenComplete(
            (bytes, error) -> {
              try {
                if (error != null) {
                  x.problem(failure(error, ref));
                } else {
                  serve(x, ref, etag, bytes);
                }
              } catch (RuntimeException e) {
                x.problem(Problem.about(503, "UNAVAILABLE", "answering failed: " + e, ref));
              }
            });
  }

  /** Answers what the ref says, as {@code claimcheck inspect --json} prints it. */
  void describe(Exchange x, Grant grant, ClaimRef ref) {
    if (refused(x, grant, ref)) {
      return;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("version", ref.version());
    m.put("tenant", ref.tenant().value());
    m.put("pack_id", ref.packId().hex());
    m.put("index", ref.claimId().index());
    m.put("offset", ref.offset());
    m.put("length", ref.length());
    m.put("codec", ref.codec().name().toLowerCase(Locale.ROOT));
    m.put("checksum", String.format("%08x", ref.checksum()));
    m.put("uncompressed_length", ref.knowsRawLength() ? ref.rawLength() : null);
    byte[] body = Json.write(m).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    x.response().getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    x.response().getHeaders().put(HttpHeader.CONTENT_LENGTH, Long.toString(body.length));
    immutable(x, RefPath.etag(ref));
    x.answer(200, x.isHead() ? null : ByteBuffer.wrap(body), 0);
  }

  /**
   * Answers 403 when the token may not read the ref's tenant, or this gateway does not serve it.
   */
  private boolean refused(Exchange x, Grant grant, ClaimRef ref) {
    String tenant = ref.tenant().value();
    if (!grant.read() || !grant.tenant().equals(tenant)) {
      x.problem(
          Problem.about(
              403, "FORBIDDEN", "this token may not read claims of tenant " + tenant, ref));
      return true;
    }
    if (!cc.allows(tenant)) {
      x.problem(
          Problem.about(
              403,
              "REFUSED",
              "tenant " + tenant + " is not in " + ClaimCheckConfig.TENANTS_ALLOWED,
              ref));
      return true;
    }
    return false;
  }

  private void serve(Exchange x, ClaimRef ref, String etag, byte[] bytes) {
    ByteRange.Ask ask;
    try {
      ask = ByteRange.parse(x.header(HttpHeader.RANGE), bytes.length);
    } catch (ByteRange.BadRange e) {
      x.problem(Problem.about(416, "BAD_RANGE", e.getMessage(), ref));
      return;
    }
    immutable(x, etag);
    x.response().getHeaders().put(HttpHeader.ACCEPT_RANGES, "bytes");
    x.response().getHeaders().put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
    if (ask instanceof ByteRange.Unsatisfiable) {
      x.response().getHeaders().put(HttpHeader.CONTENT_RANGE, "bytes */" + bytes.length);
      x.problem(
          Problem.about(
              416,
              "BAD_RANGE",
              "the range lies outside the claim's " + bytes.length + " bytes",
              ref));
      return;
    }
    if (ask instanceof ByteRange.Part p) {
      ByteRange r = p.range();
      x.response()
          .getHeaders()
          .put(
              HttpHeader.CONTENT_RANGE, "bytes " + r.first() + "-" + r.last() + "/" + bytes.length);
      x.response().getHeaders().put(HttpHeader.CONTENT_LENGTH, Long.toString(r.length()));
      x.answer(
          206,
          x.isHead() ? null : ByteBuffer.wrap(bytes, (int) r.first(), (int) r.length()),
          x.isHead() ? 0 : r.length());
      return;
    }
    x.response().getHeaders().put(HttpHeader.CONTENT_LENGTH, Long.toString(bytes.length));
    x.answer(200, x.isHead() ? null : ByteBuffer.wrap(bytes), x.isHead() ? 0 : bytes.length);
  }

  private static void immutable(Exchange x, String etag) {
    x.response().getHeaders().put(HttpHeader.ETAG, etag);
    x.response().getHeaders().put(HttpHeader.CACHE_CONTROL, "private, max-age=31536000, immutable");
  }

  private static boolean matches(String ifNoneMatch, String etag) {
    for (String t : ifNoneMatch.split(",")) {
      String s = t.strip();
      if (s.startsWith("W/")) {
        s = s.substring(2);
      }
      if (s.equals("*") || s.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  /** The redeem's deadline: the caller's, capped by {@code claimcheck.read.deadline.ms}. */
  long deadlineMs(String header) {
    if (header == null) {
      return readDeadlineMs;
    }
    long asked;
    try {
      asked = Long.parseLong(header.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          GatewayHandler.DEADLINE_HEADER + " is not a number of milliseconds");
    }
    if (asked < 1) {
      throw new IllegalArgumentException(GatewayHandler.DEADLINE_HEADER + " must be at least 1");
    }
    return Math.min(asked, readDeadlineMs);
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
