package io.ankusa.claimcheck.internal;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.internal.ref.CorruptPackException;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

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
 */
final class Compressor {

  /** gzip as Kafka writes it: an 8 KiB deflater buffer, the default level. */
  private static final int GZIP_BUFFER = 8 << 10;

  /** zstd as Kafka writes it: level 3, a 16 KiB input buffer. */
  private static final int ZSTD_LEVEL = 3;
  private static final int ZSTD_BUFFER = 16 << 10;

  /** How much a stream decoder is asked for at a time. */
  private static final int READ_CHUNK = 64 << 10;

  /** The first allocation for an inflated claim, relative to its stored size (when unknown). */
  private static final int FIRST_CHUNK_RATIO = 4;

  private Compressor() {}

  /** Returns {@code raw} compressed with {@code codec} ({@code raw} itself for NONE). */
  static byte[] compress(Codec codec, byte[] raw) {
    switch (codec) {
      case NONE:
        return raw;
      case LZ4:
        return Lz4Frame.compress(raw);
      case SNAPPY:
        return SnappyFrame.compress(raw);
      default:
        break;
    }
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(Math.max(64, raw.length / 2));
    try (OutputStream out = codec == Codec.GZIP
        ? new BufferedOutputStream(new GZIPOutputStream(buffer, GZIP_BUFFER), 2 * GZIP_BUFFER)
        : new BufferedOutputStream(
            new ZstdOutputStreamNoFinalizer(buffer, RecyclingBufferPool.INSTANCE, ZSTD_LEVEL),
            ZSTD_BUFFER)) {
      out.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress with " + codec, e);
    }
    return buffer.toByteArray();
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
  static byte[] decompress(Codec codec, byte[] stored, int rawLength, int maxBytes) {
    if (codec == Codec.NONE) {
      return stored;
    }
    boolean known = rawLength != ClaimRef.UNKNOWN_RAW_LENGTH;
    if (known && (rawLength < 0 || rawLength > maxBytes)) {
      throw new CorruptPackException("the ref records " + rawLength
          + " uncompressed bytes, outside 0.." + maxBytes);
    }
    int bound = known ? rawLength : maxBytes;
    // Plausible sizes are allocated at once; past that, memory follows the output produced.
    long guess = Math.max((long) READ_CHUNK, (long) stored.length * FIRST_CHUNK_RATIO);
    InflateSink sink = new InflateSink(bound, (int) Math.min(bound, guess),
        known ? "the uncompressed length its ref records" : "claimcheck.read.max.bytes", !known);
    switch (codec) {
      case LZ4:
        Lz4Frame.decompress(stored, sink);
        break;
      case SNAPPY:
        SnappyFrame.decompress(stored, sink);
        break;
      default:
        inflateStream(codec, stored, sink);
        break;
    }
    if (known && sink.size() != rawLength) {
      throw new CorruptPackException("the claim inflates to " + sink.size()
          + " bytes, its ref records " + rawLength);
    }
    return sink.toByteArray();
  }

  private static void inflateStream(Codec codec, byte[] stored, InflateSink sink) {
    try (InputStream in = codec == Codec.GZIP
        ? new GZIPInputStream(new ByteArrayInputStream(stored), GZIP_BUFFER)
        : new ZstdInputStreamNoFinalizer(
            new ByteArrayInputStream(stored), RecyclingBufferPool.INSTANCE)) {
      drain(in, sink);
    } catch (IOException | RuntimeException e) {
      if (e instanceof CorruptPackException || e instanceof PastReadLimitException) {
        throw (RuntimeException) e;
      }
      throw new CorruptPackException("not a valid " + codec + " stream: " + e);
    }
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
