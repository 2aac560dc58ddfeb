package io.ankusa.claimcheck.internal.wire;

/** Big-endian reads and writes into byte arrays; stateless and thread-safe. */
public final class Bytes {

  private Bytes() {}

  public static void putShort(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 8);
    b[at + 1] = (byte) v;
  }

  public static int getUnsignedShort(byte[] b, int at) {
    return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
  }

  public static void putInt(byte[] b, int at, int v) {
    putShort(b, at, v >>> 16);
    putShort(b, at + 2, v);
  }

  public static int getInt(byte[] b, int at) {
    return (getUnsignedShort(b, at) << 16) | getUnsignedShort(b, at + 2);
  }

  public static void putLong(byte[] b, int at, long v) {
    putInt(b, at, (int) (v >>> 32));
    putInt(b, at + 4, (int) v);
  }

  public static long getLong(byte[] b, int at) {
    return ((long) getInt(b, at) << 32) | (getInt(b, at + 4) & 0xffffffffL);
  }
}
