package io.ankusa.claimcheck.internal.compress;

import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyOutputStream;

/**
 * snappy-java's stream format, the one Kafka writes for snappy record batches: written by
 * snappy-java's own {@code SnappyOutputStream} (as Kafka does), read here block by block so no
 * allocation is ever sized by a length field that was not checked; stateless and thread-safe.
 *
 * <pre>
 *   header: magic 82 'SNAPPY' 00 (8) | version (4) | compatible version (4), big-endian
 *   blocks: compressed length N (4, big-endian) | N bytes of raw Snappy (one block each)
 * </pre>
 *
 * <p>A header may recur between blocks (concatenated streams), as snappy-java reads it.
 *
 * <p>Why not snappy-java's {@code SnappyInputStream}: it allocates by the input's length fields
 * before reading anything behind them: {@code new byte[chunkSize]} from a block's length word (up
 * to 512 MiB) and {@code new byte[uncompressedLength]} from the block's varint (up to 2 GiB), past
 * any bound of ours. Measured with snappy-java 1.1.10.7 at {@code -Xmx256m}: a 20-byte stream
 * declaring a 500 MiB block fails with {@code SnappyError} (an {@code Error}: "Java heap space"), a
 * 26-byte one whose 6-byte block declares 1 GiB with {@code OutOfMemoryError}; with a 2 GiB heap
 * both allocate before failing. Read here, both are a {@code CorruptPackException} and allocate
 * nothing: the block length is checked against the bytes present, the declared length against
 * {@link #MAX_RATIO} and the sink's bound.
 */
final class SnappyFrame {

  private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
  private static final int HEADER = MAGIC.length + 8;
  private static final int MAGIC_HEAD = 0x82534E41; // the magic's first 4 bytes as an int

  /**
   * Snappy's densest element, a 3-byte copy, yields 64 bytes: no valid block inflates to more than
   * this many bytes per compressed byte, so a block declaring more is refused unallocated.
   */
  private static final int MAX_RATIO = 22;

  private SnappyFrame() {}

  static byte[] compress(byte[] raw) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(Math.max(64, raw.length / 2));
    try (SnappyOutputStream out = new SnappyOutputStream(buffer)) {
      out.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress with snappy", e);
    }
    return buffer.toByteArray();
  }

  /** Inflates the stream into {@code sink}; throws {@link CorruptPackException} if invalid. */
  static void decompress(byte[] in, InflateSink sink) {
    int at = header(in, 0);
    while (at < in.length) {
      need(in, at, 4);
      int chunk = getInt(in, at);
      if (chunk == MAGIC_HEAD) {
        at = header(in, at);
        continue;
      }
      at += 4;
      if (chunk < 0) {
        throw invalid("negative block length " + chunk);
      }
      need(in, at, chunk);
      int declared;
      try {
        declared = Snappy.uncompressedLength(in, at, chunk);
      } catch (IOException e) {
        throw invalid(e.getMessage());
      }
      if (declared < 0 || declared > (long) chunk * MAX_RATIO) {
        throw invalid("a block of " + chunk + " bytes declares " + declared + " inflated");
      }
      if (declared > 0 && sink.reserve(declared) < declared) {
        throw sink.overflow();
      }
      int n;
      try {
        if (declared == 0) {
          n = Snappy.isValidCompressedBuffer(in, at, chunk) ? 0 : -1;
        } else {
          n = Snappy.uncompress(in, at, chunk, sink.buffer(), sink.position());
        }
      } catch (IOException e) {
        throw invalid(e.getMessage());
      }
      if (n != declared) {
        throw invalid("a block declaring " + declared + " bytes inflated to " + n);
      }
      sink.advance(n);
      at += chunk;
    }
  }

  /** Checks the header at {@code at}; returns where the blocks start. */
  private static int header(byte[] in, int at) {
    need(in, at, HEADER);
    for (int i = 0; i < MAGIC.length; i++) {
      if (in[at + i] != MAGIC[i]) {
        throw invalid("no snappy-java stream header");
      }
    }
    if (getInt(in, at + MAGIC.length) < 1) {
      throw invalid("stream version " + getInt(in, at + MAGIC.length));
    }
    return at + HEADER;
  }

  private static void need(byte[] in, int at, int n) {
    if (in.length - at < n) {
      throw invalid("truncated");
    }
  }

  private static int getInt(byte[] b, int at) {
    return (b[at] & 0xff) << 24
        | (b[at + 1] & 0xff) << 16
        | (b[at + 2] & 0xff) << 8
        | (b[at + 3] & 0xff);
  }

  private static CorruptPackException invalid(String why) {
    return new CorruptPackException("not a valid snappy stream: " + why);
  }
}
