package io.ankusa.claimcheck.internal;

import io.ankusa.claimcheck.internal.ref.CorruptPackException;
import java.io.ByteArrayOutputStream;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.StreamingXXHash32;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The LZ4 frame Kafka writes for record batches of magic 2, written and read with lz4-java
 * directly; stateless and thread-safe.
 *
 * <p>Written exactly as Kafka's {@code Lz4BlockOutputStream} at its default level: magic {@code
 * 0x184D2204}, FLG {@code 0x60} (version 1, independent blocks, no checksums, no content size), BD
 * {@code 0x40} (64 KiB blocks), the descriptor checksum (byte 1 of XXH32 over FLG and BD), then
 * blocks of at most 64 KiB compressed by the fast compressor (stored raw, high bit set, when that
 * does not shrink them), then a 0 end mark. Read per the LZ4 frame format as far as Kafka's reader
 * goes (block and content checksums and a content size are honoured; dependent blocks, a
 * dictionary id and reserved bits are refused), plus no bytes after the end mark.
 */
final class Lz4Frame {

  static final int MAGIC = 0x184D2204;
  private static final int FLG = 0x60;
  private static final int BD_64KB = 0x40;
  private static final int BLOCK = 64 << 10;
  private static final int RAW_BLOCK = 0x80000000;

  private static final LZ4Factory LZ4 = LZ4Factory.fastestInstance();
  private static final XXHashFactory XXHASH = XXHashFactory.fastestInstance();

  private Lz4Frame() {}

  static byte[] compress(byte[] raw) {
    LZ4Compressor compressor = LZ4.fastCompressor();
    XXHash32 hash = XXHASH.hash32();
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, raw.length / 2));
    byte[] head = new byte[7];
    putIntLe(head, 0, MAGIC);
    head[4] = (byte) FLG;
    head[5] = (byte) BD_64KB;
    head[6] = (byte) ((hash.hash(head, 4, 2, 0) >> 8) & 0xFF);
    out.writeBytes(head);
    byte[] compressed = new byte[compressor.maxCompressedLength(BLOCK)];
    byte[] size = new byte[4];
    for (int at = 0; at < raw.length; at += BLOCK) {
      int n = Math.min(BLOCK, raw.length - at);
      int c = compressor.compress(raw, at, n, compressed, 0, compressed.length);
      if (c >= n) {
        putIntLe(size, 0, n | RAW_BLOCK);
        out.writeBytes(size);
        out.write(raw, at, n);
      } else {
        putIntLe(size, 0, c);
        out.writeBytes(size);
        out.write(compressed, 0, c);
      }
    }
    putIntLe(size, 0, 0);
    out.writeBytes(size);
    return out.toByteArray();
  }

  /** Inflates one frame into {@code sink}; throws {@link CorruptPackException} if invalid. */
  static void decompress(byte[] in, InflateSink sink) {
    if (in.length < 7 || getIntLe(in, 0) != MAGIC) {
      throw invalid("no LZ4 frame magic");
    }
    int flg = in[4] & 0xff;
    int bd = in[5] & 0xff;
    if ((flg >>> 6) != 1) {
      throw invalid("frame version " + (flg >>> 6));
    }
    if ((flg & 0x03) != 0 || (bd & 0x8F) != 0) {
      throw invalid("reserved bits or a dictionary id are set");
    }
    if ((flg & 0x20) == 0) {
      throw invalid("dependent blocks are not supported");
    }
    boolean blockChecksum = (flg & 0x10) != 0;
    boolean contentSize = (flg & 0x08) != 0;
    boolean contentChecksum = (flg & 0x04) != 0;
    int blockCode = (bd >>> 4) & 7;
    if (blockCode < 4) {
      throw invalid("block size code " + blockCode);
    }
    int maxBlock = 1 << (2 * blockCode + 8);
    int at = 6;
    long declared = -1;
    if (contentSize) {
      need(in, at, 9);
      declared = getIntLe(in, at) & 0xffffffffL | (long) getIntLe(in, at + 4) << 32;
      at += 8;
    }
    XXHash32 hash = XXHASH.hash32();
    if ((byte) ((hash.hash(in, 4, at - 4, 0) >> 8) & 0xFF) != in[at]) {
      throw invalid("frame descriptor checksum mismatch");
    }
    at++;
    int startSize = sink.size();
    StreamingXXHash32 content = contentChecksum ? XXHASH.newStreamingHash32(0) : null;
    try {
      at = blocks(in, at, maxBlock, blockChecksum, content, sink);
    } finally {
      if (content != null) {
        content.close();
      }
    }
    if (declared >= 0 && declared != sink.size() - startSize) {
      throw invalid("content size " + declared + " but " + (sink.size() - startSize)
          + " bytes inflated");
    }
    if (at != in.length) {
      throw invalid((in.length - at) + " bytes after the end mark");
    }
  }

  /** Reads the blocks from {@code at} through the end mark (and content checksum); returns the end. */
  private static int blocks(byte[] in, int at, int maxBlock, boolean blockChecksum,
      StreamingXXHash32 content, InflateSink sink) {
    XXHash32 hash = XXHASH.hash32();
    LZ4SafeDecompressor decompressor = LZ4.safeDecompressor();
    byte[] aside = null; // one block's room, allocated once, only near the sink's bound
    while (true) {
      need(in, at, 4);
      int word = getIntLe(in, at);
      at += 4;
      if (word == 0) {
        break;
      }
      boolean raw = (word & RAW_BLOCK) != 0;
      int blockSize = word & ~RAW_BLOCK;
      if (blockSize > maxBlock) {
        throw invalid("block of " + blockSize + " bytes exceeds the frame's " + maxBlock);
      }
      need(in, at, blockSize + (blockChecksum ? 4 : 0));
      if (blockChecksum && hash.hash(in, at, blockSize, 0) != getIntLe(in, at + blockSize)) {
        throw invalid("block checksum mismatch");
      }
      if (raw) {
        sink.write(in, at, blockSize);
        if (content != null) {
          content.update(in, at, blockSize);
        }
      } else {
        if (aside == null && sink.reserve(maxBlock) < maxBlock) {
          aside = new byte[maxBlock];
        }
        inflateBlock(decompressor, in, at, blockSize, maxBlock, sink, content, aside);
      }
      at += blockSize + (blockChecksum ? 4 : 0);
    }
    if (content != null) {
      need(in, at, 4);
      if (content.getValue() != getIntLe(in, at)) {
        throw invalid("content checksum mismatch");
      }
      at += 4;
    }
    return at;
  }

  private static void inflateBlock(LZ4SafeDecompressor decompressor, byte[] in, int at,
      int blockSize, int maxBlock, InflateSink sink, StreamingXXHash32 content, byte[] aside) {
    int room = sink.reserve(maxBlock);
    if (room == maxBlock) {
      int n = inflate(decompressor, in, at, blockSize, sink.buffer(), sink.position(), room);
      if (content != null) {
        content.update(sink.buffer(), sink.position(), n);
      }
      sink.advance(n);
      return;
    }
    // Near the bound: inflate aside (a block is at most maxBlock, 4 MiB), then see if it fits.
    byte[] block = aside;
    int n = inflate(decompressor, in, at, blockSize, block, 0, maxBlock);
    if (n > room) {
      throw sink.overflow();
    }
    if (content != null) {
      content.update(block, 0, n);
    }
    sink.write(block, 0, n);
  }

  private static int inflate(LZ4SafeDecompressor decompressor, byte[] in, int at, int blockSize,
      byte[] out, int outAt, int max) {
    try {
      return decompressor.decompress(in, at, blockSize, out, outAt, max);
    } catch (LZ4Exception e) {
      throw invalid(e.getMessage());
    }
  }

  private static void need(byte[] in, int at, int n) {
    if (n < 0 || in.length - at < n) {
      throw invalid("truncated");
    }
  }

  private static CorruptPackException invalid(String why) {
    return new CorruptPackException("not a valid lz4 stream: " + why);
  }

  private static void putIntLe(byte[] b, int at, int v) {
    b[at] = (byte) v;
    b[at + 1] = (byte) (v >>> 8);
    b[at + 2] = (byte) (v >>> 16);
    b[at + 3] = (byte) (v >>> 24);
  }

  private static int getIntLe(byte[] b, int at) {
    return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16
        | (b[at + 3] & 0xff) << 24;
  }
}
