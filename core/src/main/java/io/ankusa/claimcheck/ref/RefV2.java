package io.ankusa.claimcheck.ref;

import java.nio.ByteBuffer;

/**
 * The version-2 ref body; stateless and thread-safe. Frozen like {@link RefV1}: the version-1 body
 * followed by the claim's uncompressed length, so a reader knows what a claim inflates to before it
 * fetches or inflates it.
 *
 * <pre>
 *   version-1 body | raw (uncompressed) length (4, signed, at least 0)
 * </pre>
 */
final class RefV2 {

  /** The bytes version 2 adds to the version-1 body. */
  static final int EXTRA = 4;

  /** The longest body. */
  static final int MAX_BODY = RefV1.MAX_BODY + EXTRA;

  private RefV2() {}

  static byte[] write(ClaimRef ref) {
    byte[] b = RefV1.writeCommon(ref, EXTRA);
    ByteBuffer.wrap(b).putInt(b.length - EXTRA, (int) ref.rawLength()); // validated to fit
    return b;
  }

  /** Reads the body at {@code bytes[start, start + length)}, whose CRC was already checked. */
  static ClaimRef read(byte[] bytes, int start, int length) {
    return read(bytes, start, length, 2);
  }

  /**
   * Reads a body of version 2's layout as a ref of {@code version}: 2, or {@link
   * ClaimRef#ENCRYPTED_VERSION} (the same body, for an encrypted claim).
   */
  static ClaimRef read(byte[] bytes, int start, int length, int version) {
    String what = "version-" + version;
    RefV1.Common c = RefV1.readCommon(bytes, start, length, EXTRA, what);
    int rawLength = ByteBuffer.wrap(bytes).getInt(start + length - EXTRA);
    try {
      return new ClaimRef(
          version,
          Tenant.of(c.tenant()),
          new ClaimId(new PackId(c.pack()), c.index()),
          c.offset(),
          c.length(),
          c.checksum(),
          c.codec(),
          rawLength);
    } catch (IllegalArgumentException e) {
      throw RefV1.bad(what, e.getMessage());
    }
  }
}
