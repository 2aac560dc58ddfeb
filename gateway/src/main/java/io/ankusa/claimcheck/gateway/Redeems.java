package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;

/**
 * {@code GET}/{@code HEAD /v1/claims/{ref}} and {@code GET /v1/refs/{ref}}: a ref the caller's
 * token may read, redeemed through the shared reader without holding a thread while it waits (but
 * for a small claim's fetch led on this thread, {@link InlineLeads}); thread-safe.
 *
 * <p>Everything a ref alone decides is answered before any store request: its tenant against the
 * token (403), the read limit (413), {@code If-None-Match} (304: a claim never changes, so a
 * matching checksum means the caller holds these bytes), and a range against the claim's length
 * when the ref records it (416). A whole claim streams ({@link ClaimCheck#redeemStream}, {@link
 * StreamedAnswer}: chunks through the reader, the end verified before the last piece goes out, the
 * response aborted when it does not), bounded by {@code claimcheck.stream.max.bytes} for a streamed
 * claim or a packed uncompressed one (of one inline read: sent as it arrives, {@link
 * EarlyAnswers}); a {@code Range} of an uncompressed claim is one ranged store read of just those
 * bytes ({@link ClaimCheck#redeemRange}: not verified, the checksum covers the whole claim); a
 * range of a packed compressed claim is cut from the whole claim, redeemed (verified) within {@code
 * claimcheck.read.max.bytes}. {@code HEAD} transfers nothing: length and checksum come from the
 * ref, existence from {@link ClaimCheck#exists} (the cache, else a store stat); only a compressed
 * v1 ref, whose raw length is unknown, is redeemed for a HEAD.
 */
final class Redeems {

  private final ClaimCheck cc;
  private final long readDeadlineMs;
  private final long readMaxBytes;
  private final long streamMaxBytes;
  private final InlineLeads inline;
  private final EarlyAnswers early;

  Redeems(ClaimCheck cc, InlineLeads inline) {
    this.cc = cc;
    this.inline = inline;
    this.readDeadlineMs = cc.config().readDeadline().toMillis();
    this.readMaxBytes = cc.config().readMaxBytes();
    this.streamMaxBytes = cc.config().streamReadMaxBytes();
    this.early = new EarlyAnswers(cc, inline, readMaxBytes);
  }

  /** Answers a claim's bytes (or the headers of them, for HEAD). */
  void claim(Exchange x, Grant grant, ClaimRef ref) {
    if (refused(x, grant, ref)) {
      return;
    }
    long size = knownSize(ref);
    ByteRange.Ask ask = new ByteRange.Whole();
    // A range of a compressed or encrypted streamed claim is not served: the whole claim is (RFC
    // 9110 allows it).
    boolean rangeable = !(ref.isStreamed() && (ref.codec() != Codec.NONE || ref.isEncrypted()));
    if (size >= 0 && rangeable) {
      try {
        ask = ByteRange.parse(x.header(HttpHeader.RANGE), size);
      } catch (ByteRange.BadRange e) {
        x.problem(Problem.about(416, "BAD_RANGE", e.getMessage(), ref));
        return;
      }
      if (ask instanceof ByteRange.Unsatisfiable) {
        ClaimAnswers.ranged(
            x, ref, RefPath.etag(ref), ask, size, null); // the ref knows the length: no read
        return;
      }
    }
    // A range of an uncompressed claim is read alone, so the read limit is judged against it.
    boolean alone = ask instanceof ByteRange.Part && ref.codec() == Codec.NONE;
    long read = alone ? ((ByteRange.Part) ask).range().length() : limitedSize(ref);
    // A whole claim streams (a streamed claim's, or a packed uncompressed one's) up to the streamed
    // limit; a range, or a packed compressed claim, is held in memory, up to the read limit.
    boolean streams =
        ask instanceof ByteRange.Whole && (ref.isStreamed() || ref.codec() == Codec.NONE);
    long limit =
        streams
            ? (ref.isStreamed() ? streamMaxBytes : Math.max(readMaxBytes, streamMaxBytes))
            : readMaxBytes;
    if (read > limit) {
      x.problem(
          Problem.about(
              413,
              "REFUSED",
              (alone ? "range of " : "claim of ")
                  + read
                  + " bytes exceeds "
                  + (streams && limit != readMaxBytes
                      ? ClaimCheckConfig.STREAM_MAX_BYTES
                      : ClaimCheckConfig.READ_MAX_BYTES)
                  + " ("
                  + limit
                  + ")"
                  + (streams ? "" : "; a range or a compressed packed claim is held in memory"),
              ref));
      return;
    }
    String etag = RefPath.etag(ref);
    String inm = x.header(HttpHeader.IF_NONE_MATCH);
    if (inm != null && matches(inm, etag)) {
      ClaimAnswers.immutable(x, etag);
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
    if (size >= 0 && x.isHead()) {
      ByteRange.Ask headAsk = ask;
      ClaimAnswers.answer(
          x,
          ref,
          deadlineMs,
          () -> cc.exists(ref, deadline),
          found -> {
            if (found) {
              ClaimAnswers.ranged(x, ref, etag, headAsk, size, null);
            } else {
              x.problem(
                  Problem.about(
                      404, "NOT_FOUND", Redeems.claimOf(ref) + "no store holds its pack", ref));
            }
          });
      return;
    }
    if (alone) {
      ByteRange r = ((ByteRange.Part) ask).range();
      ByteRange.Ask partAsk = ask;
      ClaimAnswers.answer(
          x,
          ref,
          deadlineMs,
          () ->
              inline.run(
                  r.length(), deadline, () -> cc.redeemRange(ref, r.first(), r.length(), deadline)),
          bytes -> ClaimAnswers.ranged(x, ref, etag, partAsk, size, ByteBuffer.wrap(bytes)));
      return;
    }
    if (size >= 0 && !x.isHead() && ask instanceof ByteRange.Whole) {
      if (early.serves(ref, size)) {
        early.answer(x, ref, etag, (int) size, deadlineMs, deadline);
        return;
      }
      ClaimCheck.ClaimStream stream;
      try {
        stream =
            inline.run(
                size,
                deadline,
                () -> cc.redeemStream(ref, java.time.Duration.ofMillis(deadlineMs)));
      } catch (RuntimeException e) {
        x.problem(ClaimAnswers.failure(e, ref));
        return;
      }
      StreamedAnswer.serve(x, ref, etag, stream, size);
      return;
    }
    ClaimAnswers.answer(
        x,
        ref,
        deadlineMs,
        () -> inline.run(limitedSize(ref), deadline, () -> cc.redeem(ref, deadline)),
        bytes -> ClaimAnswers.serve(x, ref, etag, bytes));
  }

  /**
   * The claim's length as a redeem answers it, known from the ref alone; -1 when it is not. An
   * encrypted claim's {@code length} is its envelope's: its raw length is what a redeem answers.
   */
  static long knownSize(ClaimRef ref) {
    if (ref.codec() == Codec.NONE && !ref.isEncrypted()) {
      return ref.length();
    }
    return ref.knowsRawLength() ? ref.rawLength() : -1;
  }

  private static long limitedSize(ClaimRef ref) {
    return Math.max(ref.length(), ref.rawLength());
  }

  private static String claimOf(ClaimRef ref) {
    return "claim " + ref.tenant().value() + "/" + ref.claimId() + ": ";
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
    ClaimAnswers.immutable(x, RefPath.etag(ref));
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
}
