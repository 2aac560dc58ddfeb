package io.ankusa.claimcheck.compat;

/** The values every compatibility check sends: known bytes a shifted or cut copy cannot match. */
final class Values {

  /** Inline (under the 1 KiB threshold the checks use) and checked-in sizes. */
  static final int[] SIZES = {10, 900, 4_096, 300_000, 2_500_000};

  private Values() {}

  static byte[] of(int size, int index) {
    byte[] b = new byte[size];
    for (int j = 0; j < size; j++) {
      b[j] = (byte) ((j * 31 + index * 7 + (j >>> 8)) % 251);
    }
    return b;
  }
}
