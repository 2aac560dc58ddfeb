package io.ankusa.claimcheck.ref;

import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The version-4 ref body, a streamed claim's (and version 5's, an encrypted streamed claim's);
 * stateless and thread-safe. Frozen like {@link RefV1}.
 *
 * <pre>
 *   tenant length T (1) | tenant, ASCII (T) | pack id (8) | stored length (8, signed, at least 1)
 *   | checksum (4) | codec id (1) | raw (uncompressed) length (8, signed, at least 0)
 * </pre>
 *
 * <p>A streamed claim is the whole object under its pack's key: no pack header, no index, so the
 * body has no index and no offset (both 0). Its lengths are 64-bit: a claim may pass 2 GiB.
 */
final class RefV4 {

  /** The body's bytes besides the tenant. */
  static final int FIXED = 1 + 8 + 8 + 4 + 1 + 8;

  /** The longest body. */
  static final int MAX_BODY = FIXED + Tenant.MAX_LENGTH;

  private static final String VERSION = "version-4";

  private RefV4() {}

  static byte[] write(ClaimRef ref) {
    byte[] tenant = ref.tenant().value().getBytes(StandardCharsets.US_ASCII);
    byte[] b = new byte[FIXED + tenant.length];
    ByteBuffer fields = ByteBuffer.wrap(b); // big-endian
    b[0] = (byte) tenant.length;
    System.arraycopy(tenant, 0, b, 1, tenant.length);
    int at = 1 + tenant.length;
    fields.putLong(at, ref.claimId().pack().value());
    fields.putLong(at + 8, ref.length());
    fields.putInt(at + 16, ref.checksum());
    b[at + 20] = (byte) ref.codec().id();
    fields.putLong(at + 21, ref.rawLength());
    return b;
  }

  /**
   * Reads the body at {@code bytes[start, start + length)}, whose CRC was already checked, as a
   * version-5 (encrypted) ref when {@code encrypted}.
   */
  static ClaimRef read(byte[] bytes, int start, int length, boolean encrypted) {
    if (length < FIXED + 1) {
      throw RefV1.bad(
          VERSION, "body of " + length + " bytes is shorter than any " + VERSION + " body");
    }
    int tenantLength = bytes[start] & 0xff;
    if (length != FIXED + tenantLength) {
      throw RefV1.bad(
          VERSION, "body of " + length + " bytes does not fit a tenant of " + tenantLength);
    }
    int at = start + 1 + tenantLength;
    ByteBuffer fields = ByteBuffer.wrap(bytes); // big-endian
    int codecId = bytes[at + 20] & 0xff;
    Codec codec;
    try {
      codec = Codec.ofId(codecId);
    } catch (IllegalArgumentException e) {
      throw new MalformedRefException(
          Reason.UNKNOWN_CODEC,
          VERSION
              + " ref names codec id "
              + codecId
              + ", unknown to this library: upgrade the reader to a version that knows it");
    }
    String tenant = new String(bytes, start + 1, tenantLength, StandardCharsets.ISO_8859_1);
    try {
      Tenant t = Tenant.of(tenant);
      PackId pack = new PackId(fields.getLong(at));
      long stored = fields.getLong(at + 8);
      int checksum = fields.getInt(at + 16);
      long raw = fields.getLong(at + 21);
      return encrypted
          ? ClaimRef.streamedEncrypted(t, pack, stored, checksum, codec, raw)
          : ClaimRef.streamed(t, pack, stored, checksum, codec, raw);
    } catch (IllegalArgumentException e) {
      throw RefV1.bad(VERSION, e.getMessage());
    }
  }
}
