package io.ankusa.claimcheck.ref;

import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.CRC32;

/**
 * Writes and reads the binary ref; stateless and thread-safe.
 *
 * <p>Every version shares one frame, so {@link #isRef} needs no knowledge of versions:
 *
 * <pre>
 *   MAGIC (4) | version (1) | body length N (1) | body (N) | CRC32 of all preceding bytes (4)
 * </pre>
 *
 * <p>{@link #MAGIC} is {@code 00 F7 AC 6B}: a NUL, then {@code 0xF7}, which never occurs in UTF-8
 * and, read as the high byte of a Confluent schema id after its 0x00 magic, would make the id
 * negative. JSON, text, Protobuf (a tag is never 0), Avro single-object ({@code C3 01}) and
 * Confluent-framed payloads therefore never start with it; and a payload that does must also have
 * the exact declared length and a matching CRC32 to be taken for a ref.
 *
 * <p>The version byte selects the body reader, and each reader stays forever, so every ref ever
 * written decodes. Version 1's body: tenant length (1), tenant ASCII, pack id (8), claim index (2,
 * unsigned), offset (8), length (4), checksum (4), codec id (1) — all big-endian. Version 2's body
 * is version 1's followed by the claim's uncompressed length (4); it is written for compressed
 * claims only (see {@link ClaimRef#of(Tenant, ClaimId, long, long, int, Codec, long)}). Version 3
 * has version 2's body and marks an encrypted claim ({@link ClaimRef#ENCRYPTED_VERSION}). Version
 * 4's body is a streamed claim's (see {@link RefV4}): tenant length (1), tenant, pack id (8),
 * stored length (8), checksum (4), codec id (1), raw length (8); no index, no offset.
 *
 * <p>A ref this library cannot read because it is newer — an unknown version, or an unknown codec
 * in an intact ref — fails with {@link Reason#UNKNOWN_VERSION} or {@link Reason#UNKNOWN_CODEC} and
 * a message saying "upgrade the reader" ({@link MalformedRefException#needsNewerReader()}): the ref
 * is fine, the reader is old.
 */
public final class RefCodec {

  /** The 4 bytes every ref starts with. */
  public static final byte[] MAGIC = {0x00, (byte) 0xF7, (byte) 0xAC, 0x6B};

  /** Bytes before the body: magic, version, body length. */
  static final int FRAME_HEAD = MAGIC.length + 2;

  /** The trailing CRC32. */
  static final int FRAME_TAIL = 4;

  /** The length of the shortest possible frame (an empty body). */
  public static final int MIN_LENGTH = FRAME_HEAD + FRAME_TAIL;

  /** The length of the longest possible frame (a 255-byte body, any version). */
  public static final int MAX_LENGTH = FRAME_HEAD + 255 + FRAME_TAIL;

  /** The length of the longest version-1 ref (a {@value Tenant#MAX_LENGTH}-character tenant). */
  public static final int MAX_V1_LENGTH = FRAME_HEAD + RefV1.MAX_BODY + FRAME_TAIL;

  /** The length of the longest version-2 (or version-3) ref, the longest ref of a packed claim. */
  public static final int MAX_V2_LENGTH = FRAME_HEAD + RefV2.MAX_BODY + FRAME_TAIL;

  /**
   * The length of the longest version-4 ref (a streamed claim's), the longest this library writes.
   */
  public static final int MAX_V4_LENGTH = FRAME_HEAD + RefV4.MAX_BODY + FRAME_TAIL;

  private RefCodec() {}

  /** Returns the bytes of {@code ref}, written in {@code ref.version()}. */
  public static byte[] encode(ClaimRef ref) {
    Objects.requireNonNull(ref, "ref");
    byte[] body =
        switch (ref.version()) {
          case 1 -> RefV1.write(ref);
          case 2, ClaimRef.ENCRYPTED_VERSION -> RefV2.write(ref);
          case ClaimRef.STREAMED_VERSION, ClaimRef.STREAMED_ENCRYPTED_VERSION -> RefV4.write(ref);
          default ->
              throw new IllegalArgumentException("no writer for ref version " + ref.version());
        };
    byte[] out = new byte[FRAME_HEAD + body.length + FRAME_TAIL];
    System.arraycopy(MAGIC, 0, out, 0, MAGIC.length);
    out[MAGIC.length] = (byte) ref.version();
    out[MAGIC.length + 1] = (byte) body.length;
    System.arraycopy(body, 0, out, FRAME_HEAD, body.length);
    ByteBuffer.wrap(out).putInt(out.length - FRAME_TAIL, crc32(out, out.length - FRAME_TAIL));
    return out;
  }

  /**
   * Returns whether {@code bytes} is exactly one intact ref frame (of any version): right length,
   * magic and CRC32. Cheap, never throws, false for null.
   */
  public static boolean isRef(byte[] bytes) {
    return bytes != null
        && bytes.length >= MIN_LENGTH
        && bytes.length <= MAX_LENGTH
        && hasMagic(bytes)
        && bytes.length == declaredLength(bytes)
        && crcMatches(bytes);
  }

  /**
   * Reads a ref written by this or any earlier version of the library; throws {@link
   * MalformedRefException} with the {@link Reason} when {@code bytes} is anything else.
   */
  public static ClaimRef decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.length >= MAGIC.length && !hasMagic(bytes)) {
      throw new MalformedRefException(Reason.BAD_MAGIC, "bytes do not start with the ref magic");
    }
    if (bytes.length < MIN_LENGTH) {
      throw new MalformedRefException(
          Reason.TRUNCATED, bytes.length + " bytes, shorter than any ref (" + MIN_LENGTH + ")");
    }
    int declared = declaredLength(bytes);
    if (bytes.length < declared) {
      throw new MalformedRefException(
          Reason.TRUNCATED, bytes.length + " bytes, but the ref declares " + declared);
    }
    if (bytes.length > declared) {
      throw new MalformedRefException(
          Reason.TRAILING_BYTES, bytes.length + " bytes, but the ref declares " + declared);
    }
    if (!crcMatches(bytes)) {
      throw new MalformedRefException(Reason.BAD_CRC, "CRC32 mismatch: the ref is damaged");
    }
    int version = bytes[MAGIC.length] & 0xff;
    int bodyLength = bytes[MAGIC.length + 1] & 0xff;
    return switch (version) {
      case 1 -> RefV1.read(bytes, FRAME_HEAD, bodyLength);
      case 2 -> RefV2.read(bytes, FRAME_HEAD, bodyLength);
      case ClaimRef.ENCRYPTED_VERSION ->
          RefV2.read(bytes, FRAME_HEAD, bodyLength, ClaimRef.ENCRYPTED_VERSION);
      case ClaimRef.STREAMED_VERSION -> RefV4.read(bytes, FRAME_HEAD, bodyLength, false);
      case ClaimRef.STREAMED_ENCRYPTED_VERSION -> RefV4.read(bytes, FRAME_HEAD, bodyLength, true);
      default ->
          throw new MalformedRefException(
              Reason.UNKNOWN_VERSION,
              "ref version "
                  + version
                  + " is unknown (this library reads 1.."
                  + ClaimRef.CURRENT_VERSION
                  + "): upgrade the reader to a version that reads ref"
                  + " version "
                  + version);
    };
  }

  private static boolean hasMagic(byte[] bytes) {
    for (int i = 0; i < MAGIC.length; i++) {
      if (bytes[i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  /** The frame length declared by the body-length byte; needs {@code FRAME_HEAD} bytes. */
  private static int declaredLength(byte[] bytes) {
    return FRAME_HEAD + (bytes[MAGIC.length + 1] & 0xff) + FRAME_TAIL;
  }

  private static boolean crcMatches(byte[] bytes) {
    int end = bytes.length - FRAME_TAIL;
    return ByteBuffer.wrap(bytes).getInt(end) == crc32(bytes, end);
  }

  /** The CRC32 (IEEE) of {@code bytes[0, length)}: the frame's checksum. */
  private static int crc32(byte[] bytes, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }
}
