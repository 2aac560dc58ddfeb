package io.ankusa.claimcheck;

import io.ankusa.claimcheck.ref.Codec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

/**
 * Compresses and decompresses claims with Kafka's own codecs (gzip, snappy, lz4, zstd, from
 * kafka-clients); thread-safe (stateless).
 *
 * <p>The codec is recorded in the pack and the ref, so a reader needs no setting to decompress.
 */
final class Compressor {

  private static final byte MAGIC = RecordBatch.CURRENT_MAGIC_VALUE;

  private Compressor() {}

  /** Returns {@code raw} compressed with {@code codec} ({@code raw} itself for NONE). */
  static byte[] compress(Codec codec, byte[] raw) {
    if (codec == Codec.NONE) {
      return raw;
    }
    ByteBufferOutputStream buffer = new ByteBufferOutputStream(Math.max(64, raw.length / 2));
    try (OutputStream out = compression(codec).wrapForOutput(buffer, MAGIC)) {
      out.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress with " + codec, e);
    }
    ByteBuffer b = buffer.buffer();
    b.flip();
    byte[] result = new byte[b.remaining()];
    b.get(result);
    return result;
  }

  /**
   * Returns {@code stored} decompressed with {@code codec}; throws {@link IOException} when the
   * bytes are not a valid stream of that codec.
   */
  static byte[] decompress(Codec codec, byte[] stored) throws IOException {
    if (codec == Codec.NONE) {
      return stored;
    }
    try (InputStream in = compression(codec)
            .wrapForInput(ByteBuffer.wrap(stored), MAGIC, BufferSupplier.NO_CACHING);
        ByteArrayOutputStream out = new ByteArrayOutputStream(stored.length * 2)) {
      in.transferTo(out);
      return out.toByteArray();
    } catch (RuntimeException e) {
      throw new IOException("not a valid " + codec + " stream: " + e.getMessage(), e);
    }
  }

  private static Compression compression(Codec codec) {
    switch (codec) {
      case GZIP:
        return Compression.gzip().build();
      case SNAPPY:
        return Compression.snappy().build();
      case LZ4:
        return Compression.lz4().build();
      case ZSTD:
        return Compression.zstd().build();
      default:
        return Compression.NONE;
    }
  }
}
