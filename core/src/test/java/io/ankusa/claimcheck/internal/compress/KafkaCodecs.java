package io.ankusa.claimcheck.internal.compress;

import io.ankusa.claimcheck.ref.Codec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

/**
 * Kafka's own codecs, as a record batch of magic 2 uses them: the reference our {@link Compressor}
 * must match byte stream for byte stream. Test scope only (Kafka internal API).
 */
final class KafkaCodecs {

  private static final byte MAGIC = RecordBatch.MAGIC_VALUE_V2;

  private KafkaCodecs() {}

  static byte[] compress(Codec codec, byte[] raw) throws IOException {
    ByteBufferOutputStream buffer = new ByteBufferOutputStream(Math.max(64, raw.length / 2));
    try (OutputStream out = compression(codec).wrapForOutput(buffer, MAGIC)) {
      out.write(raw);
    }
    ByteBuffer b = buffer.buffer();
    b.flip();
    byte[] result = new byte[b.remaining()];
    b.get(result);
    return result;
  }

  static byte[] decompress(Codec codec, byte[] stored) throws IOException {
    try (InputStream in =
            compression(codec)
                .wrapForInput(ByteBuffer.wrap(stored), MAGIC, BufferSupplier.NO_CACHING);
        ByteArrayOutputStream out = new ByteArrayOutputStream()) {
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  private static Compression compression(Codec codec) {
    return switch (codec) {
      case GZIP -> Compression.gzip().build();
      case SNAPPY -> Compression.snappy().build();
      case LZ4 -> Compression.lz4().build();
      case ZSTD -> Compression.zstd().build();
      case NONE -> Compression.NONE;
    };
  }
}
