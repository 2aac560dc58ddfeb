package io.ankusa.claimcheck.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our codecs and Kafka's speak one wire format: what Kafka's codecs compress (as for a record
 * batch of magic 2) decompresses with ours, and what ours compress decompresses with Kafka's, for
 * every codec, from empty through multi-block sizes, compressible and not.
 */
class CompressorWireTest {

  private static final int MAX = 64 << 20;

  /** Sizes around every codec's block edges: snappy 32 KiB, lz4 64 KiB, zstd 128 KiB. */
  private static final int[] SIZES = {0, 1, 2, 15, 100, 4095, 32 << 10, (32 << 10) + 1,
      (64 << 10) - 1, 64 << 10, (64 << 10) + 1, 128 << 10, (128 << 10) + 7, 300_000};

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Codec codec : new Codec[] {Codec.GZIP, Codec.SNAPPY, Codec.LZ4, Codec.ZSTD}) {
      for (int size : SIZES) {
        for (String content : new String[] {"text", "random", "zeros", "mixed"}) {
          out.add(Arguments.of(codec, size, content));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1} bytes of {2}")
  @MethodSource("cases")
  void kafkaCompressedBytesDecompressWithOurs(Codec codec, int size, String content)
      throws Exception {
    byte[] raw = content(size, content);
    byte[] kafka = KafkaCodecs.compress(codec, raw);
    assertThat(Compressor.decompress(codec, kafka, raw.length, MAX)).isEqualTo(raw);
    assertThat(Compressor.decompress(codec, kafka, ClaimRef.UNKNOWN_RAW_LENGTH, MAX))
        .isEqualTo(raw);
  }

  @ParameterizedTest(name = "{0} {1} bytes of {2}")
  @MethodSource("cases")
  void ourCompressedBytesDecompressWithKafkas(Codec codec, int size, String content)
      throws Exception {
    byte[] raw = content(size, content);
    byte[] ours = Compressor.compress(codec, raw);
    assertThat(KafkaCodecs.decompress(codec, ours)).isEqualTo(raw);
    assertThat(Compressor.decompress(codec, ours, raw.length, MAX)).isEqualTo(raw);
    if (codec == Codec.LZ4 || codec == Codec.SNAPPY) {
      // Same frame, same block compressor: byte for byte what Kafka writes.
      assertThat(ours).isEqualTo(KafkaCodecs.compress(codec, raw));
    }
    if (!content.equals("random") && size >= 4095) {
      assertThat(ours.length).isLessThan(raw.length);
    }
  }

  static byte[] content(int size, String kind) {
    byte[] b = new byte[size];
    Random random = new Random(size * 31L + kind.hashCode());
    switch (kind) {
      case "text" -> {
        String words = "claim check pack ref tenant store reader zstd lz4 snappy gzip kafka ";
        for (int i = 0; i < size; i++) {
          b[i] = (byte) words.charAt((i * 7 + random.nextInt(3)) % words.length());
        }
      }
      case "random" -> random.nextBytes(b);
      case "zeros" -> { }
      default -> {
        for (int i = 0; i < size; i += 1000) {
          byte[] chunk = new byte[Math.min(1000, size - i)];
          if ((i / 1000) % 2 == 0) {
            random.nextBytes(chunk);
          }
          System.arraycopy(chunk, 0, b, i, chunk.length);
        }
      }
    }
    return b;
  }
}
