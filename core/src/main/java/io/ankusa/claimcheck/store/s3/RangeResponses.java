package io.ankusa.claimcheck.store.s3;

import java.util.Arrays;

/**
 * Checks a ranged GET's answer against the range asked for, so a server that ignores or bends the
 * {@code Range} header never yields wrong bytes; stateless and thread-safe.
 */
final class RangeResponses {

  private RangeResponses() {}

  /**
   * Returns the bytes of {@code [offset, offset + length)} (fewer when the object ends first) from
   * a GET's {@code body}: a partial answer ({@code contentRange} like {@code bytes 3-5/10}) must
   * start at {@code offset} and hold at most {@code length} bytes; a whole-object answer ({@code
   * contentRange} null) is cut down to the range.
   *
   * @throws IllegalStateException when a partial answer does not match the range asked for
   */
  static byte[] slice(byte[] body, String contentRange, long offset, int length) {
    if (contentRange == null) {
      if (offset >= body.length) {
        return new byte[0];
      }
      int from = (int) offset;
      int to = (int) Math.min(body.length, offset + length);
      return from == 0 && to == body.length ? body : Arrays.copyOfRange(body, from, to);
    }
    long start = parseStart(contentRange);
    if (start != offset) {
      throw new IllegalStateException(
          "asked for bytes from " + offset + " but got Content-Range " + contentRange);
    }
    if (body.length > length) {
      throw new IllegalStateException(
          "asked for "
              + length
              + " bytes but got "
              + body.length
              + " (Content-Range "
              + contentRange
              + ")");
    }
    return body;
  }

  private static long parseStart(String contentRange) {
    String v = contentRange.trim();
    if (!v.regionMatches(true, 0, "bytes ", 0, 6)) {
      throw new IllegalStateException("unreadable Content-Range " + contentRange);
    }
    int dash = v.indexOf('-', 6);
    if (dash < 0) {
      throw new IllegalStateException("unreadable Content-Range " + contentRange);
    }
    try {
      return Long.parseLong(v.substring(6, dash).trim());
    } catch (NumberFormatException e) {
      throw new IllegalStateException("unreadable Content-Range " + contentRange, e);
    }
  }
}
