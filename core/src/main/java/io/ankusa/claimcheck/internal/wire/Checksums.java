package io.ankusa.claimcheck.internal.wire;

import java.util.Objects;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/** The checksums of the wire formats; stateless and thread-safe. */
public final class Checksums {

  private Checksums() {}

  /** Returns the CRC32C (Castagnoli) of {@code bytes}, as the int of its 32 bits. */
  public static int crc32c(byte[] bytes) {
    return crc32c(bytes, 0, Objects.requireNonNull(bytes, "bytes").length);
  }

  /** Returns the CRC32C of {@code bytes[offset, offset + length)}. */
  public static int crc32c(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, Objects.requireNonNull(bytes, "bytes").length);
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  /** Returns the CRC32 (IEEE) of {@code bytes[offset, offset + length)}: frames refs and packs. */
  public static int crc32(byte[] bytes, int offset, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }
}
