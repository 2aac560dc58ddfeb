package io.ankusa.claimcheck.internal.compress;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.lz4.LZ4FrameOutputStream.BLOCKSIZE;
import net.jpountz.lz4.LZ4FrameOutputStream.FLG;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Compresses and decompresses claims in the formats Kafka's codecs write for record batches of
 * magic 2, using the codec libraries directly (java.util.zip, snappy-java, lz4-java, zstd-jni) and
 * no Kafka class, so it loads with any kafka-clients; thread-safe (stateless).
 *
 * <p>The codec is recorded in the pack and the ref, so a reader needs no setting to decompress.
 * Decompression is bounded: it never allocates by a length read from the input, and a claim that
 * inflates past its bound — the raw length its ref records, else the reader's limit — fails with
 * {@link CorruptPackException} once the bound is passed, so a decompression bomb costs at most the
 * bound, never an {@code OutOfMemoryError}.
 *
 * <p>lz4 is lz4-java's frame streams configured as Kafka's {@code Lz4BlockOutputStream} at its
 * default level: FLG {@code 0x60} (version 1, independent blocks, no checksums, no content size),
 * BD {@code 0x40} (64 KiB blocks), the fast compressor, so the bytes equal Kafka's. Read: one frame
 * starting with the frame magic (no skippable frame), nothing after its end mark; the reader holds
 * two buffers of the frame's block size (at most 4 MiB each, as the BD byte's block-size code
 * allows).
 */
public final class Compressor {

  /** gzip as Kafka writes it: an 8 KiB deflater buffer, the default level. */
  private static final int GZIP_BUFFER = 8 << 10;

  /** zstd as Kafka writes it: level 3, a 16 KiB input buffer. */
  private static final int ZSTD_LEVEL = 3;

  private static final int ZSTD_BUFFER = 16 << 10;

  /** The LZ4 frame magic, little-endian on the wire: {@code 04 22 4D 18}. */
  private static final int LZ4_MAGIC = 0x184D2204;

  private static final LZ4Factory LZ4 = LZ4Factory.fastestInstance();
  private static final XXHashFactory XXHASH = XXHashFactory.fastestInstance();

  /** How much a stream decoder is asked for at a time. */
  private static final int READ_CHUNK = 64 << 10;

  /** The first allocation for an inflated claim, relative to its stored size (when unknown). */
  private static final int FIRST_CHUNK_RATIO = 4;

  private Compressor() {}

  /** Returns {@code raw} compressed with {@code codec} ({@code raw} itself for NONE). */
  public static byte[] compress(Codec codec, byte[] raw) {
    switch (codec) {
      case NONE:
        return raw;
      case SNAPPY:
        return SnappyFrame.compress(raw);
      default:
        break;
    }
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(Math.max(64, raw.length / 2));
    try (OutputStream out = encoder(codec, buffer)) {
      out.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress with " + codec, e);
    }
    return buffer.toByteArray();
  }

  private static OutputStream encoder(Codec codec, OutputStream buffer) throws IOException {
    return switch (codec) {
      case GZIP ->
          new BufferedOutputStream(new GZIPOutputStream(buffer, GZIP_BUFFER), 2 * GZIP_BUFFER);
      // One write of the whole value: the frame stream buffers its 64 KiB block itself.
      case LZ4 ->
          new LZ4FrameOutputStream(
              buffer,
              BLOCKSIZE.SIZE_64KB,
              -1L,
              LZ4.fastCompressor(),
              XXHASH.hash32(),
              FLG.Bits.BLOCK_INDEPENDENCE);
      default ->
          new BufferedOutputStream(
              new ZstdOutputStreamNoFinalizer(buffer, RecyclingBufferPool.INSTANCE, ZSTD_LEVEL),
              ZSTD_BUFFER);
    };
  }

  /**
   * Returns {@code stored} decompressed with {@code codec} ({@code stored} itself for NONE).
   *
   * @param rawLength the uncompressed length the ref records, or {@link
   *     ClaimRef#UNKNOWN_RAW_LENGTH}; when known the result must have exactly this length
   * @param maxBytes the most bytes the result may have when {@code rawLength} is unknown
   * @throws CorruptPackException when {@code stored} is not a valid stream of {@code codec}, or
   *     inflates past or short of {@code rawLength}
   * @throws PastReadLimitException when {@code rawLength} is unknown and it inflates past {@code
   *     maxBytes}
   */
  public static byte[] decompress(Codec codec, byte[] stored, int rawLength, int maxBytes) {
    if (codec == Codec.NONE) {
      return stored;
    }
    boolean known = rawLength != ClaimRef.UNKNOWN_RAW_LENGTH;
    if (known && (rawLength < 0 || rawLength > maxBytes)) {
      throw new CorruptPackException(
          "the ref records " + rawLength + " uncompressed bytes, outside 0.." + maxBytes);
    }
    int bound = known ? rawLength : maxBytes;
    // Plausible sizes are allocated at once; past that, memory follows the output produced.
    long guess = Math.max((long) READ_CHUNK, (long) stored.length * FIRST_CHUNK_RATIO);
    InflateSink sink =
        new InflateSink(
            bound,
            (int) Math.min(bound, guess),
            known ? "the uncompressed length its ref records" : "claimcheck.read.max.bytes",
            !known);
    if (codec == Codec.SNAPPY) {
      SnappyFrame.decompress(stored, sink);
    } else {
      inflateStream(codec, stored, sink);
    }
    if (known && sink.size() != rawLength) {
      throw new CorruptPackException(
          "the claim inflates to " + sink.size() + " bytes, its ref records " + rawLength);
    }
    return sink.toByteArray();
  }

  private static void inflateStream(Codec codec, byte[] stored, InflateSink sink) {
    // lz4-java would skip a skippable frame, and with readSingleFrame stop at the end mark
    // whatever follows; Kafka's reader does neither: a claim is one frame, first byte to last.
    if (codec == Codec.LZ4
        && (stored.length < 4
            || ByteBuffer.wrap(stored, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt()
                != LZ4_MAGIC)) {
      throw new CorruptPackException("not a valid LZ4 stream: no LZ4 frame magic");
    }
    ByteArrayInputStream bytes = new ByteArrayInputStream(stored);
    try (InputStream in = decoder(codec, bytes)) {
      drain(in, sink);
      if (codec == Codec.LZ4 && bytes.available() > 0) {
        throw new CorruptPackException(
            "not a valid LZ4 stream: " + bytes.available() + " bytes after the end mark");
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof CorruptPackException || e instanceof PastReadLimitException) {
        throw (RuntimeException) e;
      }
      throw new CorruptPackException("not a valid " + codec + " stream: " + e);
    }
  }

  private static InputStream decoder(Codec codec, ByteArrayInputStream bytes) throws IOException {
    return switch (codec) {
      case GZIP -> new GZIPInputStream(bytes, GZIP_BUFFER);
      case LZ4 -> new LZ4FrameInputStream(bytes, LZ4.safeDecompressor(), XXHASH.hash32(), true);
      default -> new ZstdInputStreamNoFinalizer(bytes, RecyclingBufferPool.INSTANCE);
    };
  }

  /** Reads {@code in} to its end into {@code sink}, failing as soon as it passes the bound. */
  private static void drain(InputStream in, InflateSink sink) throws IOException {
    while (true) {
      int room = sink.room(READ_CHUNK);
      if (room == 0) {
        if (in.read() >= 0) {
          throw sink.overflow();
        }
        return;
      }
      int n = in.read(sink.buffer(), sink.position(), room);
      if (n < 0) {
        return;
      }
      sink.advance(n);
    }
  }
}
