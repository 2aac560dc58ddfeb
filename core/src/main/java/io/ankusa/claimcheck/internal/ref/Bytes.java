package io.ankusa.claimcheck.ref;

/** Big-endian reads and writes into byte arrays; stateless and thread-safe. */
final class Bytes {

  private Bytes() {}

  static void putShort(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 8);
    b[at + 1] = (byte) v;
  }

  static int getUnsignedShort(byte[] b, int at) {
    return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
  }

  static void putInt(byte[] b, int at, int v) {
    putShort(b, at, v >>> 16);
    putShort(b, at + 2, v);
  }

  static int getInt(byte[] b, int at) {
    return (getUnsignedShort(b, at) << 16) | getUnsignedShort(b, at + 2);
  }

  static void putLong(byte[] b, int at, long v) {
    putInt(b, at, (int) (v >>> 32));
    putInt(b, at + 4, (int) v);
  }

  static long getLong(byte[] b, int at) {
    return ((long) getInt(b, at) << 32) | (getInt(b, at + 4) & 0xffffffffL);
  }
}
