package io.ankusa.claimcheck.ref;

import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * What a Kafka record carries instead of a checked-in payload: the tenant, the claim id, and where
 * and how the claim's stored bytes lie in its pack; immutable and thread-safe.
 *
 * <p>A ref names no store: a read searches them. {@link RefCodec} writes it in at most {@value
 * RefCodec#MAX_V4_LENGTH} bytes.
 *
 * <p>Version 1 records the stored bytes only; version 2 adds the claim's uncompressed length, so a
 * reader bounds its allocation before inflating. Writers use version 2 only for compressed claims
 * ({@link #of(Tenant, ClaimId, long, long, int, Codec, long)}): an uncompressed claim's raw length
 * is its stored length, and its ref stays readable by readers that know version 1 only.
 *
 * <p>Version 3 ({@link #ENCRYPTED_VERSION}) has version 2's body and says the stored bytes are an
 * encrypted envelope (issue 19): its {@code length} and {@code checksum} are of the envelope, its
 * {@code rawLength} the claim's decrypted, uncompressed length, at any codec. A reader that knows
 * versions 1-2 only answers "upgrade the reader" for it, never the ciphertext as the value; a
 * ranged redeem of it reads and decrypts the whole claim.
 *
 * <p>Version 4 ({@link #STREAMED_VERSION}) is a streamed claim ({@link #streamed}): the whole
 * object is its stored bytes (offset 0, index 0), and its lengths are 64-bit, so a claim may pass 2
 * GiB; versions 1 to 3 record lengths of at most {@link Integer#MAX_VALUE}.
 *
 * <p>Version 5 ({@link #STREAMED_ENCRYPTED_VERSION}) has version 4's body and says the object is an
 * encrypted envelope of segments (a streamed check-in where the tenant's claims are encrypted):
 * {@code length} and {@code checksum} are of the envelope, {@code rawLength} the decrypted claim's
 * after its codec inflates it. It is both {@link #isStreamed} and {@link #isEncrypted}; a reader
 * that knows versions 1-4 only answers "upgrade the reader", never the ciphertext as the value.
 *
 * @param version the ref format version this ref is written in, 1..{@link #CURRENT_VERSION}
 * @param tenant the claim's owner
 * @param claimId the pack and index of the claim
 * @param offset the absolute byte offset of the claim's stored bytes within its pack object: the
 *     hint that lets one ranged GET redeem the claim
 * @param length the number of stored bytes, at least 1 (empty payloads are never checked in)
 * @param checksum the CRC32C of the stored bytes
 * @param codec how the stored bytes are compressed
 * @param rawLength the claim's uncompressed length: version 2's field; {@code length} when {@code
 *     codec} is {@link Codec#NONE}; {@link #UNKNOWN_RAW_LENGTH} for a compressed version-1 ref
 */
public record ClaimRef(
    int version,
    Tenant tenant,
    ClaimId claimId,
    long offset,
    long length,
    int checksum,
    Codec codec,
    long rawLength) {

  /** The newest ref format version this library reads and writes. */
  public static final int CURRENT_VERSION = 5;

  /** The version of a ref to an encrypted claim: version 2's body, the envelope's bytes stored. */
  public static final int ENCRYPTED_VERSION = 3;

  /** The ref version of a streamed claim: a one-claim object of its stored bytes alone. */
  public static final int STREAMED_VERSION = 4;

  /** The ref version of an encrypted streamed claim: version 4's body, the envelope stored. */
  public static final int STREAMED_ENCRYPTED_VERSION = 5;

  /** The {@link #rawLength()} of a compressed version-1 ref, which does not record it. */
  public static final int UNKNOWN_RAW_LENGTH = -1;

  /** Validates the fields; throws {@link IllegalArgumentException} naming the bad one. */
  public ClaimRef {
    if (version < 1 || version > CURRENT_VERSION) {
      throw new IllegalArgumentException(
          "ref version " + version + " is outside 1.." + CURRENT_VERSION);
    }
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(claimId, "claimId");
    Objects.requireNonNull(codec, "codec");
    if (offset < 0) {
      throw new IllegalArgumentException("ref offset " + offset + " is negative");
    }
    if (length < 1) {
      throw new IllegalArgumentException("ref length " + length + " is not positive");
    }
    if (version < STREAMED_VERSION
        && (length > Integer.MAX_VALUE || rawLength > Integer.MAX_VALUE)) {
      throw new IllegalArgumentException(
          "a version-" + version + " ref records lengths of at most " + Integer.MAX_VALUE);
    }
    if (version >= STREAMED_VERSION && (offset != 0 || claimId.index() != 0)) {
      throw new IllegalArgumentException(
          "a streamed claim is the whole object: offset 0, index 0, not "
              + offset
              + ", "
              + claimId.index());
    }
    if (offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException(
          "ref offset " + offset + " + length " + length + " overflows");
    }
    if (codec == Codec.NONE
        && version != ENCRYPTED_VERSION
        && version != STREAMED_ENCRYPTED_VERSION
        && rawLength != length) {
      throw new IllegalArgumentException(
          "raw length "
              + rawLength
              + " of an uncompressed claim differs from its length "
              + length);
    }
    if (version == 1 && codec != Codec.NONE && rawLength != UNKNOWN_RAW_LENGTH) {
      throw new IllegalArgumentException(
          "a version-1 ref does not record the raw length of a compressed claim");
    }
    if (version >= 2 && rawLength < 0) {
      throw new IllegalArgumentException("ref raw length " + rawLength + " is negative");
    }
  }

  /**
   * A version-1 ref: its raw length is {@code length} when uncompressed, else {@link
   * #UNKNOWN_RAW_LENGTH}. Throws {@link IllegalArgumentException} for any other version (they
   * record the raw length, so use the canonical constructor).
   */
  public ClaimRef(
      int version,
      Tenant tenant,
      ClaimId claimId,
      long offset,
      long length,
      int checksum,
      Codec codec) {
    this(
        version,
        tenant,
        claimId,
        offset,
        length,
        checksum,
        codec,
        v1RawLength(version, codec, length));
  }

  /**
   * Returns the ref a writer writes today: version 1 when {@code codec} is {@link Codec#NONE}
   * ({@code rawLength} must then equal {@code length}), else version 2 recording {@code rawLength}.
   */
  public static ClaimRef of(
      Tenant tenant,
      ClaimId claimId,
      long offset,
      long length,
      int checksum,
      Codec codec,
      long rawLength) {
    int version = Objects.requireNonNull(codec, "codec") == Codec.NONE ? 1 : 2;
    return new ClaimRef(version, tenant, claimId, offset, length, checksum, codec, rawLength);
  }

  /**
   * Returns the ref of an encrypted claim (version {@value #ENCRYPTED_VERSION}): {@code length} and
   * {@code checksum} describe the stored envelope, {@code rawLength} the decrypted claim after
   * {@code codec} inflates it.
   */
  public static ClaimRef ofEncrypted(
      Tenant tenant,
      ClaimId claimId,
      long offset,
      long length,
      int checksum,
      Codec codec,
      long rawLength) {
    return new ClaimRef(
        ENCRYPTED_VERSION, tenant, claimId, offset, length, checksum, codec, rawLength);
  }

  /** Whether the claim's stored bytes are an encrypted envelope (a version-3 or -5 ref). */
  public boolean isEncrypted() {
    return version == ENCRYPTED_VERSION || version == STREAMED_ENCRYPTED_VERSION;
  }

  /** Returns a version-1 ref (whose raw length is unknown when {@code codec} compresses). */
  public static ClaimRef of(
      Tenant tenant, ClaimId claimId, long offset, long length, int checksum, Codec codec) {
    return new ClaimRef(1, tenant, claimId, offset, length, checksum, codec);
  }

  /**
   * Returns the ref of a streamed claim (version {@value #STREAMED_VERSION}): the whole object of
   * pack {@code pack} holds its {@code length} stored bytes, whose CRC32C is {@code checksum}, and
   * {@code rawLength} bytes once decompressed with {@code codec}.
   */
  public static ClaimRef streamed(
      Tenant tenant, PackId pack, long length, int checksum, Codec codec, long rawLength) {
    return new ClaimRef(
        STREAMED_VERSION, tenant, new ClaimId(pack, 0), 0, length, checksum, codec, rawLength);
  }

  /**
   * Returns the ref of an encrypted streamed claim (version {@value #STREAMED_ENCRYPTED_VERSION}):
   * the whole object of pack {@code pack} is an envelope of {@code length} bytes, whose CRC32C is
   * {@code checksum}, decrypting to {@code rawLength} bytes once decompressed with {@code codec}.
   */
  public static ClaimRef streamedEncrypted(
      Tenant tenant, PackId pack, long length, int checksum, Codec codec, long rawLength) {
    return new ClaimRef(
        STREAMED_ENCRYPTED_VERSION,
        tenant,
        new ClaimId(pack, 0),
        0,
        length,
        checksum,
        codec,
        rawLength);
  }

  /**
   * Whether this is a streamed claim's ref (version {@value #STREAMED_VERSION} or {@value
   * #STREAMED_ENCRYPTED_VERSION}): its object holds the claim's stored bytes alone, written by a
   * streamed check-in.
   */
  public boolean isStreamed() {
    return version == STREAMED_VERSION || version == STREAMED_ENCRYPTED_VERSION;
  }

  /** Returns the pack holding the claim. */
  public PackId packId() {
    return claimId.pack();
  }

  /**
   * Whether {@code stored} (the bytes of this ref's range, as a store returned them) are this
   * claim's stored bytes: the ref's length and CRC32C.
   */
  public boolean matches(byte[] stored) {
    if (stored.length != length) {
      return false;
    }
    CRC32C crc = new CRC32C();
    crc.update(stored);
    return (int) crc.getValue() == checksum;
  }

  /** Whether the claim's uncompressed length is known ({@link #rawLength()} is not -1). */
  public boolean knowsRawLength() {
    return rawLength != UNKNOWN_RAW_LENGTH;
  }

  private static long v1RawLength(int version, Codec codec, long length) {
    if (version >= 2 && version <= CURRENT_VERSION) {
      throw new IllegalArgumentException(
          "a version-" + version + " ref records its raw length: pass it");
    }
    return codec == Codec.NONE ? length : UNKNOWN_RAW_LENGTH;
  }
}
