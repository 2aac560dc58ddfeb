package io.ankusa.claimcheck.benchmarks;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Random;

/**
 * The values {@link EndToEndHarness} sends and how it checks them; thread-safe (immutable once
 * built).
 *
 * <p>Record {@code i} carries key {@code i} (4 bytes) and a value of {@code size} bytes: a window
 * of one random buffer starting {@code 4 * (i % 4096)} bytes in, whose first 4 bytes are then
 * overwritten with {@code i}. So every value is distinct and incompressible, building one costs one
 * copy (as a producer holding its value would have), and checking one needs no stored copy.
 */
final class Values {

  static final int MAX_SIZE = 16 << 20;
  private static final int WINDOWS = 4096;
  private final byte[] base = new byte[MAX_SIZE + 4 * WINDOWS];

  Values() {
    new Random(42).nextBytes(base);
  }

  /** Record {@code i}'s key. */
  static byte[] key(int i) {
    return ByteBuffer.allocate(4).putInt(i).array();
  }

  /** A fresh array holding record {@code i}'s value of {@code size} bytes. */
  byte[] value(int i, int size) {
    if (size < 4 || size > MAX_SIZE) {
      throw new IllegalArgumentException("value size must be 4.." + MAX_SIZE + ": " + size);
    }
    int from = offset(i);
    byte[] v = Arrays.copyOfRange(base, from, from + size);
    ByteBuffer.wrap(v).putInt(0, i);
    return v;
  }

  /**
   * Checks that {@code value} is the value of the record {@code key} names, of {@code size} bytes,
   * and that no earlier record had that key; marks it seen.
   *
   * @throws AssertionError naming the record otherwise
   */
  void check(String who, byte[] key, byte[] value, int size, BitSet seen) {
    int i = ByteBuffer.wrap(key).getInt();
    if (i < 0 || seen.get(i)) {
      throw new AssertionError(who + ": unexpected or repeated key " + i);
    }
    int from = offset(i);
    if (value == null
        || value.length != size
        || ByteBuffer.wrap(value).getInt(0) != i
        || !Arrays.equals(value, 4, size, base, from + 4, from + size)) {
      String got = value == null ? "null" : value.length + " B";
      throw new AssertionError(who + ": WRONG BYTES for record " + i + " (" + got + ")");
    }
    seen.set(i);
  }

  private static int offset(int i) {
    return 4 * (i % WINDOWS);
  }
}
