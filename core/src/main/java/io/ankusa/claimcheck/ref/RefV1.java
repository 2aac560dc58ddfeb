package io.ankusa.claimcheck.ref;

import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The version-1 ref body; stateless and thread-safe. Frozen: once refs of version 1 exist, this
 * layout never changes (a change is a new version with a new reader beside this one).
 *
 * <pre>
 *   tenant length T (1) | tenant, ASCII (T) | pack id (8) | claim index (2, unsigned)
 *   | offset (8) | length (4) | checksum (4) | codec id (1)
 * </pre>
 *
 * <p>{@link RefV2} extends this body by trailing fields, so it writes and parses the common part
 * here ({@link #writeCommon}, {@link #readCommon}).
 */
final class RefV1 {

  /** The body's bytes besides the tenant. */
  static final int FIXED = 1 + 8 + 2 + 8 + 4 + 4 + 1;

  /** The longest body. */
  static final int MAX_BODY = FIXED + Tenant.MAX_LENGTH;

  private RefV1() {}

  static byte[] write(ClaimRef ref) {
    return writeCommon(ref, 0);
  }

  /** Reads the body at {@code bytes[start, start + length)}, whose CRC was already checked. */
  static ClaimRef read(byte[] bytes, int start, int length) {
    Common c = readCommon(bytes, start, length, 0, "version-1");
    try {
      return new ClaimRef(
          1,
          Tenant.of(c.tenant),
          new ClaimId(new PackId(c.pack), c.index),
          c.offset,
          c.length,
          c.checksum,
          c.codec);
    } catch (IllegalArgumentException e) {
      throw bad("version-1", e.getMessage());
    }
  }

  /** Writes the version-1 fields of {@code ref}, leaving {@code extra} zero bytes at the end. */
  static byte[] writeCommon(ClaimRef ref, int extra) {
    byte[] tenant = ref.tenant().value().getBytes(StandardCharsets.US_ASCII);
    byte[] b = new byte[FIXED + tenant.length + extra];
    ByteBuffer fields = ByteBuffer.wrap(b); // big-endian
    int at = 0;
    b[at++] = (byte) tenant.length;
    System.arraycopy(tenant, 0, b, at, tenant.length);
    at += tenant.length;
    fields.putLong(at, ref.claimId().pack().value());
    at += 8;
    fields.putShort(at, (short) ref.claimId().index());
    at += 2;
    fields.putLong(at, ref.offset());
    at += 8;
    fields.putInt(at, (int) ref.length()); // at most Integer.MAX_VALUE below version 4
    at += 4;
    fields.putInt(at, ref.checksum());
    at += 4;
    b[at] = (byte) ref.codec().id();
    return b;
  }

  /**
   * Parses the version-1 fields of a body of {@code length} bytes that ends in {@code extra}
   * further bytes; checks the body's size and the codec id, not the other fields' values.
   */
  static Common readCommon(byte[] bytes, int start, int length, int extra, String version) {
    if (length < FIXED + 1 + extra) {
      throw bad(version, "body of " + length + " bytes is shorter than any " + version + " body");
    }
    int tenantLength = bytes[start] & 0xff;
    if (length != FIXED + tenantLength + extra) {
      throw bad(version, "body of " + length + " bytes does not fit a tenant of " + tenantLength);
    }
    int at = start + 1;
    String tenantName = new String(bytes, at, tenantLength, StandardCharsets.ISO_8859_1);
    at += tenantLength;
    ByteBuffer fields = ByteBuffer.wrap(bytes); // big-endian
    long pack = fields.getLong(at);
    at += 8;
    int index = Short.toUnsignedInt(fields.getShort(at));
    at += 2;
    long offset = fields.getLong(at);
    at += 8;
    int claimLength = fields.getInt(at);
    at += 4;
    int checksum = fields.getInt(at);
    at += 4;
    int codecId = bytes[at] & 0xff;
    Codec codec;
    try {
      codec = Codec.ofId(codecId);
    } catch (IllegalArgumentException e) {
      throw new MalformedRefException(
          Reason.UNKNOWN_CODEC,
          version
              + " ref names codec id "
              + codecId
              + ", unknown to this library: upgrade the reader to a version that knows it");
    }
    return new Common(tenantName, pack, index, offset, claimLength, checksum, codec);
  }

  static MalformedRefException bad(String version, String message) {
    return new MalformedRefException(Reason.BAD_FIELD, version + " ref: " + message);
  }

  /** The version-1 fields as read, not yet validated (but for the codec). */
  record Common(
      String tenant, long pack, int index, long offset, int length, int checksum, Codec codec) {}
}
