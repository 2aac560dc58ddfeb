package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.ref.RefCodec;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * Finds intact ref frames ({@link RefCodec}'s magic, declared length and CRC32) at any offset of a
 * byte array; stateless and thread-safe.
 *
 * <p>The collector marks conservatively with it: Kafka Streams and user serdes embed our bytes in
 * their own formats (a {@code Change}, a windowed key, a join wrapper), so a ref is looked for
 * everywhere, not only as a whole field. The frame identifies itself, so a hit is a ref unless
 * magic and CRC match by chance (about 2<sup>-64</sup> per offset): such a false positive only
 * keeps a pack alive. The search looks for the magic's rare second byte ({@code 0xF7}), eight bytes
 * at a time, and checks the others around it; nothing is allocated until a whole magic matched.
 */
final class RefFrames {

  private static final byte M0 = RefCodec.MAGIC[0];
  private static final byte M1 = RefCodec.MAGIC[1];
  private static final byte M2 = RefCodec.MAGIC[2];
  private static final byte M3 = RefCodec.MAGIC[3];
  private static final int HEAD = RefCodec.MAGIC.length + 2;
  private static final int TAIL = 4;
  private static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle CRC =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long SPREAD_M1 = (M1 & 0xffL) * ONES;

  private RefFrames() {}

  /**
   * The offset of the first intact frame in {@code data} starting at or after {@code from}, or -1;
   * its length is {@link #length}.
   */
  static int next(byte[] data, int from) {
    int lastStart = data.length - RefCodec.MIN_LENGTH;
    int i = Math.max(from, 0) + 1; // where the magic's second byte would be
    int end = lastStart + 1; // the last such place
    // Eight bytes at a time while a whole word fits: skip words without a 0xF7 byte.
    for (; i + Long.BYTES - 1 <= end; i += Long.BYTES) {
      long w = (long) WORDS.get(data, i) ^ SPREAD_M1;
      if (((w - ONES) & ~w & HIGHS) != 0) {
        for (int j = i; j < i + Long.BYTES; j++) {
          if (data[j] == M1 && frameAt(data, j - 1)) {
            return j - 1;
          }
        }
      }
    }
    for (; i <= end; i++) {
      if (data[i] == M1 && frameAt(data, i - 1)) {
        return i - 1;
      }
    }
    return -1;
  }

  /** Whether an intact frame starts at {@code s}, whose second byte is the magic's. */
  private static boolean frameAt(byte[] data, int s) {
    if (data[s] != M0 || data[s + 2] != M2 || data[s + 3] != M3) {
      return false;
    }
    int n = length(data, s);
    return s + n <= data.length && crcMatches(data, s, n);
  }

  /** The length a frame starting at {@code start} declares (needs its head in bounds). */
  static int length(byte[] data, int start) {
    return HEAD + (data[start + RefCodec.MAGIC.length + 1] & 0xff) + TAIL;
  }

  /** Whether {@code data} starts with the ref magic. */
  static boolean startsWithMagic(byte[] data) {
    return data.length >= RefCodec.MAGIC.length
        && data[0] == M0
        && data[1] == M1
        && data[2] == M2
        && data[3] == M3;
  }

  private static boolean crcMatches(byte[] data, int start, int length) {
    CRC32 crc = new CRC32();
    crc.update(data, start, length - TAIL);
    return (int) crc.getValue() == (int) CRC.get(data, start + length - TAIL);
  }
}
