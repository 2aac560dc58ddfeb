package io.ankusa.claimcheck.gateway;

/**
 * One byte range of a {@code Range: bytes=…} header, resolved against a claim's length; immutable.
 *
 * @param first the first byte served
 * @param last the last byte served (inclusive)
 */
record ByteRange(long first, long last) {

  /** What a Range header asks for. */
  sealed interface Ask permits Whole, Part, Unsatisfiable {}

  /** Serve the whole claim (no Range, or one this gateway does not split: several ranges). */
  record Whole() implements Ask {}

  /** Serve {@code range}. */
  record Part(ByteRange range) implements Ask {}

  /** A range outside the claim: 416. */
  record Unsatisfiable() implements Ask {}

  /** Thrown for a Range header that does not parse (400). */
  static final class BadRange extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    BadRange(String message) {
      super(message);
    }
  }

  long length() {
    return last - first + 1;
  }

  /**
   * Resolves {@code header} (null: none) against a claim of {@code size} bytes: {@code bytes=a-b},
   * {@code bytes=a-}, {@code bytes=-n}; several ranges are served whole (RFC 9110 lets a server
   * ignore Range).
   */
  static Ask parse(String header, long size) {
    if (header == null) {
      return new Whole();
    }
    String h = header.strip();
    if (!h.startsWith("bytes=")) {
      throw new BadRange("only bytes ranges are served");
    }
    String spec = h.substring(6).strip();
    if (spec.contains(",")) {
      return new Whole();
    }
    int dash = spec.indexOf('-');
    if (dash < 0 || spec.length() > 40) {
      throw new BadRange("expected bytes=first-last, bytes=first- or bytes=-suffix");
    }
    String a = spec.substring(0, dash).strip();
    String b = spec.substring(dash + 1).strip();
    try {
      if (a.isEmpty()) {
        long suffix = Long.parseLong(b);
        if (suffix <= 0 || b.startsWith("+")) {
          return suffix == 0 ? new Unsatisfiable() : bad();
        }
        return new Part(new ByteRange(Math.max(0, size - suffix), size - 1));
      }
      long first = Long.parseLong(a);
      long last = b.isEmpty() ? Long.MAX_VALUE : Long.parseLong(b);
      if (first < 0 || last < first || a.startsWith("+") || b.startsWith("+")) {
        return bad();
      }
      if (first >= size) {
        return new Unsatisfiable();
      }
      return new Part(new ByteRange(first, Math.min(last, size - 1)));
    } catch (NumberFormatException e) {
      return bad();
    }
  }

  private static Ask bad() {
    throw new BadRange("expected bytes=first-last, bytes=first- or bytes=-suffix");
  }
}
