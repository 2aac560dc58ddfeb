package io.ankusa.claimcheck.internal.compress;

import java.io.ByteArrayOutputStream;

/** Builds zstd decompression bombs by hand: a frame of RLE blocks, 4 bytes per 128 KiB of zeros. */
public final class ZstdBomb {

  private static final int BLOCK = 128 << 10;

  private ZstdBomb() {}

  /**
   * A valid zstd frame (no declared content size, no checksum) that inflates to {@code blocks} ×
   * 128 KiB of zeros; 16,785 blocks are the 67 KB that inflate to 2.2 GB.
   */
  public static byte[] frame(int blocks) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(6 + 4 * blocks);
    out.writeBytes(new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD}); // magic, little-endian
    out.write(0x00); // frame header descriptor: no content size, not single-segment, no checksum
    out.write(7 << 3); // window descriptor: 2^(10 + 7) = 128 KiB
    for (int i = 0; i < blocks; i++) {
      int header = (i == blocks - 1 ? 1 : 0) | (1 << 1) | (BLOCK << 3); // last?, RLE, size
      out.write(header);
      out.write(header >>> 8);
      out.write(header >>> 16);
      out.write(0); // the byte repeated
    }
    return out.toByteArray();
  }

  /** How many bytes {@link #frame} of {@code blocks} inflates to. */
  static long inflated(int blocks) {
    return (long) blocks * BLOCK;
  }
}
