package io.ankusa.claimcheck.kafka;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The values of a chaos run: each embeds its own id and a checksum of its body, and is fully
 * determined by (run seed, id), so a consumer verifies it byte for byte; stateless and thread-safe.
 *
 * <p>Layout: magic (4), id (8), body length (4), CRC32 of the body (8), body (the plaintext {@link
 * #MARKER}, then seeded random bytes). About one value in seven is inline (below the 1 KiB
 * threshold); the others are log-uniform between 1 KiB and 300 KiB.
 */
final class ChaosValue {

  static final int HEADER = 4 + 8 + 4 + 8;

  /** Planted at the start of every body: what no stored object may show when encrypted. */
  static final byte[] MARKER =
      "ankusa-chaos-plaintext-marker".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private static final int MAGIC = 0x43484153; // "CHAS"
  private static final int MIN_CLAIMED = 1 << 10;
  private static final int MAX_CLAIMED = 300 << 10;

  private ChaosValue() {}

  /** The size of value {@code id} in run {@code seed}. */
  static int size(long seed, long id) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + id);
    if (r.nextInt(7) == 0) {
      // Inline, well below the threshold, and long enough to hold the whole marker.
      return HEADER + MARKER.length + r.nextInt(MIN_CLAIMED - HEADER - MARKER.length - 100);
    }
    double logMin = Math.log(MIN_CLAIMED);
    double logMax = Math.log(MAX_CLAIMED);
    return (int) Math.exp(logMin + r.nextDouble() * (logMax - logMin));
  }

  /** Value {@code id} of run {@code seed}. */
  static byte[] of(long seed, long id) {
    int size = size(seed, id);
    byte[] body = new byte[size - HEADER];
    new SplittableRandom(seed ^ (id * 0xC2B2AE3D27D4EB4FL)).nextBytes(body);
    System.arraycopy(MARKER, 0, body, 0, MARKER.length);
    CRC32 crc = new CRC32();
    crc.update(body);
    return ByteBuffer.allocate(size)
        .putInt(MAGIC)
        .putLong(id)
        .putInt(body.length)
        .putLong(crc.getValue())
        .put(body)
        .array();
  }

  /**
   * Checks {@code value} against what value {@code id} of run {@code seed} must be, byte for byte;
   * returns null when identical, else what differs.
   */
  static String verify(long seed, long id, byte[] value) {
    if (value == null) {
      return "null value";
    }
    if (value.length >= HEADER) {
      ByteBuffer b = ByteBuffer.wrap(value);
      int magic = b.getInt();
      long embeddedId = b.getLong();
      int length = b.getInt();
      long crc = b.getLong();
      if (magic != MAGIC || embeddedId != id || length != value.length - HEADER) {
        return "header: magic "
            + Integer.toHexString(magic)
            + " id "
            + embeddedId
            + " body "
            + length
            + " of "
            + (value.length - HEADER);
      }
      CRC32 actual = new CRC32();
      actual.update(value, HEADER, length);
      if (actual.getValue() != crc) {
        return "body checksum "
            + Long.toHexString(actual.getValue())
            + " != embedded "
            + Long.toHexString(crc);
      }
    }
    byte[] expected = of(seed, id);
    if (!Arrays.equals(expected, value)) {
      return "bytes differ: "
          + value.length
          + " bytes, expected "
          + expected.length
          + ", first difference at "
          + Arrays.mismatch(expected, value);
    }
    return null;
  }
}
