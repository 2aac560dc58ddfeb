package io.ankusa.claimcheck.ref;

import java.util.Objects;

/** Bytes handed to {@link RefCodec#decode} are not a ref this library can read; immutable. */
public final class MalformedRefException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /** Why the bytes are not a readable ref. */
  public enum Reason {
    /** The bytes do not start with the ref magic: they are not a ref at all. */
    BAD_MAGIC,
    /** Fewer bytes than the ref declares (or than the smallest ref). */
    TRUNCATED,
    /** More bytes than the ref declares: something was appended. */
    TRAILING_BYTES,
    /** The trailing CRC32 does not match: the ref was damaged. */
    BAD_CRC,
    /**
     * A well-formed ref of a version this library does not know (written by a newer one): not a bad
     * ref, an old reader; the message says "upgrade the reader".
     */
    UNKNOWN_VERSION,
    /**
     * An intact ref naming a codec this library does not know (written by a newer one): not a bad
     * ref, an old reader; the message says "upgrade the reader".
     */
    UNKNOWN_CODEC,
    /** A field of an intact ref is invalid (a bad tenant, codec, length, …). */
    BAD_FIELD
  }

  private final Reason reason;

  /** Creates the exception; the message says what was wrong. */
  public MalformedRefException(Reason reason, String message) {
    super(Objects.requireNonNull(reason, "reason") + ": " + message);
    this.reason = reason;
  }

  /** Returns why the bytes were refused. */
  public Reason reason() {
    return reason;
  }

  /**
   * Whether a newer reader would read the ref ({@link Reason#UNKNOWN_VERSION} or {@link
   * Reason#UNKNOWN_CODEC}): retriable after an upgrade, never a reason to skip the record.
   */
  public boolean needsNewerReader() {
    return reason == Reason.UNKNOWN_VERSION || reason == Reason.UNKNOWN_CODEC;
  }
}
