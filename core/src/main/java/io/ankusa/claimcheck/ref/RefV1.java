package io.ankusa.claimcheck.ref;

import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import java.nio.charset.StandardCharsets;

/**
 * The version-1 ref body; stateless and thread-safe. Frozen: once refs of version 1 exist, this
 * layout never changes (a change is a new version with a new reader beside this one).
 *
 * <pre>
 *   tenant length T (1) | tenant, ASCII (T) | pack id (8) | claim index (2, unsigned)
 *   | offset (8) | length (4) | checksum (4) | codec id (1)
 * </pre>
 */
final class RefV1 {

  /** The body's bytes besides the tenant. */
  static final int FIXED = 1 + 8 + 2 + 8 + 4 + 4 + 1;

  /** The longest body. */
  static final int MAX_BODY = FIXED + Tenant.MAX_LENGTH;

  private RefV1() {}

  static byte[] write(ClaimRef ref) {
    byte[] tenant = ref.tenant().value().getBytes(StandardCharsets.US_ASCII);
    byte[] b = new byte[FIXED + tenant.length];
    int at = 0;
    b[at++] = (byte) tenant.length;
    System.arraycopy(tenant, 0, b, at, tenant.length);
    at += tenant.length;
    Bytes.putLong(b, at, ref.claimId().pack().value());
    at += 8;
    Bytes.putShort(b, at, ref.claimId().index());
    at += 2;
    Bytes.putLong(b, at, ref.offset());
    at += 8;
    Bytes.putInt(b, at, ref.length());
    at += 4;
    Bytes.putInt(b, at, ref.checksum());
    at += 4;
    b[at] = (byte) ref.codec().id();
    return b;
  }

  /** Reads the body at {@code bytes[start, start + length)}, whose CRC was already checked. */
  static ClaimRef read(byte[] bytes, int start, int length) {
    if (length < FIXED + 1) {
      throw bad("body of " + length + " bytes is shorter than any version-1 body");
    }
    int tenantLength = bytes[start] & 0xff;
    if (length != FIXED + tenantLength) {
      throw bad("body of " + length + " bytes does not fit a tenant of " + tenantLength);
    }
    int at = start + 1;
    String tenantName = new String(bytes, at, tenantLength, StandardCharsets.ISO_8859_1);
    at += tenantLength;
    long pack = Bytes.getLong(bytes, at);
    at += 8;
    int index = Bytes.getUnsignedShort(bytes, at);
    at += 2;
    long offset = Bytes.getLong(bytes, at);
    at += 8;
    int claimLength = Bytes.getInt(bytes, at);
    at += 4;
    int checksum = Bytes.getInt(bytes, at);
    at += 4;
    int codecId = bytes[at] & 0xff;
    try {
      return new ClaimRef(1, Tenant.of(tenantName), new ClaimId(new PackId(pack), index), offset,
          claimLength, checksum, Codec.ofId(codecId));
    } catch (IllegalArgumentException e) {
      throw bad(e.getMessage());
    }
  }

  private static MalformedRefException bad(String message) {
    return new MalformedRefException(Reason.BAD_FIELD, "version-1 ref: " + message);
  }
}
