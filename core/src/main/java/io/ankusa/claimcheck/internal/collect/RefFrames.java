package io.ankusa.claimcheck.internal.collect;

import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.ref.RefCodec;
import java.util.zip.CRC32;

/**
 * Finds intact ref frames ({@link RefCodec}'s magic, declared length and CRC32) at any offset of
 * a byte array; stateless and thread-safe.
 *
 * <p>The collector marks conservatively with it: Kafka Streams and user serdes embed our bytes in
 * their own formats (a {@code Change}, a windowed key, a join wrapper), so a ref is looked for
 * everywhere, not only as a whole field. The frame identifies itself, so a hit is a ref unless
 * magic and CRC match by chance (about 2<sup>-64</sup> per offset): such a false positive only
 * keeps a pack alive. The search looks for the magic's rare second byte ({@code 0xF7}) and checks
 * the others around it; nothing is allocated until a whole magic matched.
 */
final class RefFrames {

  private static final byte M0 = RefCodec.MAGIC[0];
  private static final byte M1 = RefCodec.MAGIC[1];
  private static final byte M2 = RefCodec.MAGIC[2];
  private static final byte M3 = RefCodec.MAGIC[3];
  private static final int HEAD = RefCodec.MAGIC.length + 2;
  private static final int TAIL = 4;

  private RefFrames() {}

  /**
   * The offset of the first intact frame in {@code data} starting at or after {@code from}, or -1;
   * its length is {@link #length}.
   */
  static int next(byte[] data, int from) {
    int lastStart = data.length - RefCodec.MIN_LENGTH;
    for (int i = Math.max(from, 0) + 1; i <= lastStart + 1; i++) {
      if (data[i] != M1) {
        continue;
      }
      int s = i - 1;
      if (data[s] != M0 || data[i + 1] != M2 || data[i + 2] != M3) {
        continue;
      }
      int n = length(data, s);
      if (s + n <= data.length && crcMatches(data, s, n)) {
        return s;
      }
    }
    return -1;
  }

  /** The length a frame starting at {@code start} declares (needs its head in bounds). */
  static int length(byte[] data, int start) {
    return HEAD + (data[start + RefCodec.MAGIC.length + 1] & 0xff) + TAIL;
  }

  /** Whether {@code data} starts with the ref magic. */
  static boolean startsWithMagic(byte[] data) {
    return data.length >= RefCodec.MAGIC.length
        && data[0] == M0 && data[1] == M1 && data[2] == M2 && data[3] == M3;
  }

  private static boolean crcMatches(byte[] data, int start, int length) {
    CRC32 crc = new CRC32();
    crc.update(data, start, length - TAIL);
    return (int) crc.getValue() == Bytes.getInt(data, start + length - TAIL);
  }
}
