package io.ankusa.claimcheck.internal.pack;

/**
 * Bytes read from a pack object are not an intact pack (bad magic, truncated, CRC or checksum
 * mismatch, entries outside the pack or overlapping); immutable. The message says which.
 */
public final class CorruptPackException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception; {@code message} says what was wrong. */
  public CorruptPackException(String message) {
    super(message);
  }
}
