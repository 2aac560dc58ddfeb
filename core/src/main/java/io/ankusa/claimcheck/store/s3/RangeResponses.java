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
    if (contentLength != null && contentLength != body.length) {
      throw new IllegalStateException(
          "HTTP " + status + " announced " + contentLength + " bytes but the body has "
              + body.length);
    }
    if (status == 200) {
      if (offset >= body.length) {
        return new byte[0];
      }
      int from = (int) offset;
      int to = (int) Math.min(body.length, offset + length);
      return from == 0 && to == body.length ? body : Arrays.copyOfRange(body, from, to);
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
          "asked for bytes " + offset + "-" + (offset + length - 1) + " but got Content-Range "
              + contentRange);
    }
    if (body.length != end - start + 1) {
      throw new IllegalStateException(
          "Content-Range " + contentRange + " announced " + (end - start + 1)
              + " bytes but the body has " + body.length);
    }
    return body;
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
