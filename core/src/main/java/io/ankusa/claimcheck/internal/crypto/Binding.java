package io.ankusa.claimcheck.internal.crypto;

import io.ankusa.claimcheck.ref.ClaimRef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The associated data of a claim's AEAD: what a ciphertext is bound to; stateless and thread-safe.
 *
 * <pre>
 *   envelope header | tenant length (1) | tenant (ASCII) | pack id (8) | claim index (2)
 *   | plaintext length (4) | codec id (1)
 * </pre>
 *
 * <p>So a claim decrypts only as the claim it was written as: copied under another tenant, into
 * another pack or index, truncated, re-labelled with another codec, or with any header byte (KEK
 * id, wrapped key) changed, the tag fails.
 */
final class Binding {

  private Binding() {}

  static byte[] of(byte[] header, String tenant, long packId, int index, int length, int codec) {
    byte[] t = tenant.getBytes(StandardCharsets.US_ASCII);
    return ByteBuffer.allocate(header.length + 1 + t.length + 8 + 2 + 4 + 1)
        .put(header)
        .put((byte) t.length)
        .put(t)
        .putLong(packId)
        .putShort((short) index)
        .putInt(length)
        .put((byte) codec)
        .array();
  }

  /** A streamed claim's binding: index 0, its length unknown when sealing began (-1). */
  static byte[] stream(byte[] header, ClaimRef ref) {
    return stream(header, ref.tenant().value(), ref.packId().value(), ref.codec().id());
  }

  /**
   * A streamed claim's binding, for {@code tenant}'s pack {@code packId} stored as {@code codec}.
   */
  static byte[] stream(byte[] header, String tenant, long packId, int codec) {
    return of(header, tenant, packId, 0, -1, codec);
  }
}
