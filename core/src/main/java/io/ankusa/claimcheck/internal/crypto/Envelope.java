package io.ankusa.claimcheck.internal.crypto;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The parsed header of an encrypted claim's stored bytes (its envelope); immutable and thread-safe.
 *
 * <pre>
 *   magic "AKEN" (4) | version (1) = 1 | AEAD id (1)
 *   | KEK id length (1) | KEK id (UTF-8, 1..255 bytes)
 *   | wrapped data key length (2) | wrapped data key (1..{@value #MAX_WRAPPED} bytes)
 *   | AEAD output
 * </pre>
 *
 * <p>AEAD id 1, AES-256-GCM in one call: nonce (12) | ciphertext | tag (16) (read, no longer
 * written). AEAD id 2, {@link Segmented}: Tink's AES-256-GCM-HKDF-SHA256 streaming format in
 * segments of 32 KiB, written for every claim, whole or streamed.
 *
 * <p>The header is the associated data's first part ({@link Binding}), so a changed byte anywhere
 * in it fails decryption even where the ref's CRC32C was forged to match.
 *
 * @param kekId the id of the KEK that wrapped the data key
 * @param wrapped the wrapped data key
 * @param headerLength the header's length: where the AEAD output starts
 * @param aead the AEAD id: {@value #AES_256_GCM} or {@value #SEGMENTED}
 */
public record Envelope(String kekId, byte[] wrapped, int headerLength, int aead) {

  /** The 4 bytes every envelope starts with. */
  static final byte[] MAGIC = {'A', 'K', 'E', 'N'};

  /** The envelope version written. */
  static final int VERSION = 1;

  /** The AEAD id of AES-256-GCM (Tink's {@code AesGcmJce}: 12-byte random nonce, 16-byte tag). */
  static final int AES_256_GCM = 1;

  /** The AEAD id of {@link Segmented}: AES-256-GCM-HKDF-SHA256 in 32 KiB segments (Tink's). */
  static final int SEGMENTED = 2;

  /** The segmented AEAD's least bytes beyond the plaintext: its stream header and one tag. */
  public static final int SEGMENTED_MIN_OVERHEAD = Segmented.STREAM_HEADER + Segmented.TAG;

  /** The longest envelope header, where a streamed claim's AEAD output starts at the latest. */
  public static final int MAX_HEADER = 4 + 1 + 1 + 1 + 255 + 2 + 1024;

  /** The AEAD's bytes beyond the plaintext: nonce and tag. */
  public static final int AEAD_OVERHEAD = 12 + 16;

  /** The longest wrapped data key accepted (AWS KMS's are about 184 bytes). */
  static final int MAX_WRAPPED = 1024;

  /** The most bytes an envelope adds to its plaintext: the longest header, nonce and tag. */
  public static final int MAX_OVERHEAD = 4 + 1 + 1 + 1 + 255 + 2 + MAX_WRAPPED + AEAD_OVERHEAD;

  /** The header's fixed bytes: magic, version, AEAD id, KEK id length, wrapped key length. */
  static final int FIXED = 4 + 1 + 1 + 1 + 2;

  /**
   * The fewest plaintext bytes an envelope of {@code stored} bytes holds, for either AEAD: what a
   * reader judges against its limit (the writer judged the plaintext, not the envelope).
   */
  public static long plainLowerBound(long stored) {
    long segments = Segmented.segments(stored);
    return Math.max(1, stored - MAX_OVERHEAD - Segmented.STREAM_HEADER - segments * Segmented.TAG);
  }

  /** Validates the fields. */
  public Envelope {
    Objects.requireNonNull(kekId, "kekId");
    Objects.requireNonNull(wrapped, "wrapped");
  }

  /** Whether {@code stored} starts like an envelope (its magic): cheap, never throws. */
  public static boolean looksLike(byte[] stored) {
    return stored.length >= MAGIC.length && Arrays.equals(stored, 0, 4, MAGIC, 0, 4);
  }

  /** The header of an AES-256-GCM (id 1) envelope for {@code kekId} and {@code wrapped}. */
  static byte[] header(String kekId, byte[] wrapped) {
    return header(kekId, wrapped, AES_256_GCM);
  }

  /** The header of an envelope of AEAD {@code aead} for {@code kekId} and {@code wrapped}. */
  static byte[] header(String kekId, byte[] wrapped, int aead) {
    byte[] id = kekId.getBytes(StandardCharsets.UTF_8);
    if (id.length < 1 || id.length > 255) {
      throw new IllegalArgumentException("a KEK id is 1-255 UTF-8 bytes: " + kekId);
    }
    if (wrapped.length < 1 || wrapped.length > MAX_WRAPPED) {
      throw new IllegalArgumentException("a wrapped data key of " + wrapped.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.allocate(FIXED + id.length + wrapped.length);
    b.put(MAGIC).put((byte) VERSION).put((byte) aead).put((byte) id.length).put(id);
    b.putShort((short) wrapped.length).put(wrapped);
    return b.array();
  }

  /**
   * Parses the header of {@code stored}; throws {@link EnvelopeException} naming what is wrong when
   * it is not an envelope this library reads, or too short to hold the AEAD's nonce and tag.
   */
  public static Envelope parse(byte[] stored) {
    Objects.requireNonNull(stored, "stored");
    if (!looksLike(stored)) {
      throw new EnvelopeException("not an envelope: the magic is missing");
    }
    if (stored.length < FIXED) {
      throw new EnvelopeException("envelope of " + stored.length + " bytes is truncated");
    }
    ByteBuffer b = ByteBuffer.wrap(stored);
    b.position(4);
    int version = b.get() & 0xff;
    if (version != VERSION) {
      throw new EnvelopeException(
          "envelope version " + version + " is unknown: upgrade the reader", true);
    }
    int aead = b.get() & 0xff;
    if (aead != AES_256_GCM && aead != SEGMENTED) {
      throw new EnvelopeException(
          "envelope AEAD id " + aead + " is unknown: upgrade the reader", true);
    }
    int idLength = b.get() & 0xff;
    if (idLength == 0 || b.remaining() < idLength + 2) {
      throw new EnvelopeException("envelope KEK id of " + idLength + " bytes does not fit");
    }
    String kekId = utf8(stored, b.position(), idLength);
    b.position(b.position() + idLength);
    int wrappedLength = b.getShort() & 0xffff;
    if (wrappedLength == 0 || wrappedLength > MAX_WRAPPED) {
      throw new EnvelopeException("envelope wrapped key length " + wrappedLength + " is invalid");
    }
    if (b.remaining()
        < wrappedLength + (aead == SEGMENTED ? SEGMENTED_MIN_OVERHEAD : AEAD_OVERHEAD)) {
      throw new EnvelopeException(
          "envelope of " + stored.length + " bytes is truncated (KEK " + kekId + ")");
    }
    byte[] wrapped = Arrays.copyOfRange(stored, b.position(), b.position() + wrappedLength);
    return new Envelope(kekId, wrapped, b.position() + wrappedLength, aead);
  }

  /** Re-encodes this header: the bytes {@link #parse} read. */
  byte[] header() {
    return header(kekId, wrapped, aead);
  }

  private static String utf8(byte[] bytes, int at, int length) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, at, length))
          .toString();
    } catch (CharacterCodingException e) {
      throw new EnvelopeException("envelope KEK id is not UTF-8");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Envelope e
        && kekId.equals(e.kekId)
        && Arrays.equals(wrapped, e.wrapped)
        && headerLength == e.headerLength
        && aead == e.aead;
  }

  @Override
  public int hashCode() {
    return kekId.hashCode() * 31 + Arrays.hashCode(wrapped);
  }

  @Override
  public String toString() {
    return "Envelope[kek=" + kekId + ", aead " + aead + ", wrapped " + wrapped.length + " bytes]";
  }

  /** A stored claim that is not an envelope this library reads; its message says why. */
  public static final class EnvelopeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean needsNewerReader;

    EnvelopeException(String message) {
      this(message, false);
    }

    EnvelopeException(String message, boolean needsNewerReader) {
      super(message);
      this.needsNewerReader = needsNewerReader;
    }

    /** Whether the envelope may be fine and this reader too old (an unknown version or AEAD). */
    public boolean needsNewerReader() {
      return needsNewerReader;
    }
  }
}
