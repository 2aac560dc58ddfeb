package io.ankusa.claimcheck.store.s3;

import java.util.Arrays;

/**
 * Checks a ranged GET's answer against the range asked for, by its status code, so a server that
 * ignores or bends the {@code Range} header, or a body cut short on the way, never yields wrong
 * bytes; stateless and thread-safe.
 */
final class RangeResponses {

  private RangeResponses() {}

  /**
   * Returns the bytes of {@code [offset, offset + length)} (fewer only when the object ends first)
   * from a GET's answer: a {@code 206} must carry a {@code Content-Range} {@code bytes s-e/total}
   * with {@code s == offset}, {@code e == min(offset + length, total) - 1} and exactly {@code e - s
   * + 1} body bytes; a {@code 200} is the whole object (its body exactly {@code Content-Length}
   * bytes, when given) and is cut down to the range.
   *
   * @param contentLength the answer's {@code Content-Length}, null when absent
   * @throws IllegalStateException when the answer does not match the range asked for, or its body
   *     not its own headers; the message says how
   */
  static byte[] slice(
      int status, byte[] body, String contentRange, Long contentLength, long offset, int length) {
    byte[] kept = body;
    if (status == 200) {
      int from = (int) Math.min(offset, body.length);
      int to = (int) Math.min(body.length, offset + length);
      kept = from == 0 && to == body.length ? body : Arrays.copyOfRange(body, from, to);
    } else if (body.length > length) {
      kept = Arrays.copyOf(body, length);
    }
    return check(status, kept, body.length, contentRange, contentLength, offset, length);
  }

  /**
   * The same check on a body of which only the part in the range was kept (see {@link RangeBody}):
   * {@code kept} holds the body's bytes from {@code offset} on for a {@code 200}, from its start
   * for a {@code 206}, at most {@code length} of them; {@code bodyBytes} is the whole body's size.
   * Returns {@code kept} when the answer matches the range asked for.
   *
   * @throws IllegalStateException when the answer does not match the range asked for, or its body
   *     not its own headers; the message says how
   */
  static byte[] check(
      int status,
      byte[] kept,
      long bodyBytes,
      String contentRange,
      Long contentLength,
      long offset,
      int length) {
    if (contentLength != null && contentLength != bodyBytes) {
      throw new IllegalStateException(
          "HTTP "
              + status
              + " announced "
              + contentLength
              + " bytes but the body has "
              + bodyBytes);
    }
    if (status == 200) {
      if (offset >= bodyBytes) {
        return new byte[0];
      }
      long expected = Math.min(bodyBytes, offset + length) - offset;
      if (kept.length != expected) {
        throw new IllegalStateException(
            "kept " + kept.length + " bytes of a whole-object answer, expected " + expected);
      }
      return kept;
    }
    if (status != 206) {
      throw new IllegalStateException("HTTP " + status + " is no answer to a ranged GET");
    }
    if (contentRange == null) {
      throw new IllegalStateException("HTTP 206 without a Content-Range");
    }
    long[] r = parse(contentRange);
    long start = r[0];
    long end = r[1];
    long total = r[2];
    long expectedEnd = Math.min(offset + length, total) - 1;
    if (start != offset || end != expectedEnd) {
      throw new IllegalStateException(
          "asked for bytes "
              + offset
              + "-"
              + (offset + length - 1)
              + " but got Content-Range "
              + contentRange);
    }
    if (bodyBytes != end - start + 1 || kept.length != bodyBytes) {
      throw new IllegalStateException(
          "Content-Range "
              + contentRange
              + " announced "
              + (end - start + 1)
              + " bytes but the body has "
              + bodyBytes);
    }
    return kept;
  }

  /** Parses {@code bytes s-e/total} into {s, e, total}, each checked for consistency. */
  private static long[] parse(String contentRange) {
    String v = contentRange.trim();
    int dash = v.indexOf('-');
    int slash = v.indexOf('/');
    if (!v.regionMatches(true, 0, "bytes ", 0, 6) || dash < 6 || slash < dash) {
      throw new IllegalStateException("unreadable Content-Range " + contentRange);
    }
    try {
      long start = Long.parseLong(v.substring(6, dash).trim());
      long end = Long.parseLong(v.substring(dash + 1, slash).trim());
      long total = Long.parseLong(v.substring(slash + 1).trim());
      if (start < 0 || end < start || total <= end) {
        throw new IllegalStateException("inconsistent Content-Range " + contentRange);
      }
      return new long[] {start, end, total};
    } catch (NumberFormatException e) {
      throw new IllegalStateException("unreadable Content-Range " + contentRange, e);
    }
  }
}
