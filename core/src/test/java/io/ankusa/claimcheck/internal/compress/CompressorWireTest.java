package io.ankusa.claimcheck.internal.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our codecs and Kafka's speak one wire format: what Kafka's codecs compress (as for a record batch
 * of magic 2) decompresses with ours, and what ours compress decompresses with Kafka's, for every
 * codec, from empty through multi-block sizes, compressible and not.
 */
class CompressorWireTest {

  private static final int MAX = 64 << 20;

  /** Sizes around every codec's block edges: snappy 32 KiB, lz4 64 KiB, zstd 128 KiB. */
  private static final int[] SIZES = {
    0,
    1,
    2,
    15,
    100,
    4095,
    32 << 10,
    (32 << 10) + 1,
    (64 << 10) - 1,
    64 << 10,
    (64 << 10) + 1,
    128 << 10,
    (128 << 10) + 7,
    300_000
  };

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

  /**
   * Frames the hand-written {@code Lz4Frame} wrote before lz4-java's frame streams replaced it
   * (empty; one compressed block; one block stored raw, high bit set; two blocks): claims checked
   * in by it decode to the same bytes, and the library writes the same frames again.
   */
  @Test
  void lz4FramesOfTheFormerHandWrittenEncoderDecodeAndAreWrittenAlike() throws Exception {
    byte[] text =
        "claim check claim check claim check claim check lz4".getBytes(StandardCharsets.US_ASCII);
    byte[] noise = new byte[40];
    long x = 12345;
    for (int i = 0; i < noise.length; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      noise[i] = (byte) (x >>> 56);
    }
    String zeros =
        "04224d186040820b0100001f000100"
            + "ff".repeat(256)
            + "e75000000000001c0000001f000100"
            + "ff".repeat(17)
            + "6850000000000000000000";
    Object[][] vectors = {
      {new byte[0], "04224d1860408200000000"},
      {text, "04224d1860408216000000cf636c61696d20636865636b200c000f506b206c7a3400000000"},
      {
        noise,
        "04224d18604082280000801c43e2d5538fcb64d030fdfb29d37a55a95f615c0716388aa783da41"
            + "4b74f3080ce7c3487c362f1100000000"
      },
      {new byte[70_000], zeros},
    };
    for (Object[] v : vectors) {
      byte[] raw = (byte[]) v[0];
      byte[] old = HexFormat.of().parseHex((String) v[1]);
      assertThat(Compressor.decompress(Codec.LZ4, old, raw.length, MAX)).isEqualTo(raw);
      assertThat(Compressor.decompress(Codec.LZ4, old, ClaimRef.UNKNOWN_RAW_LENGTH, MAX))
          .isEqualTo(raw);
      assertThat(KafkaCodecs.decompress(Codec.LZ4, old)).isEqualTo(raw);
      assertThat(Compressor.compress(Codec.LZ4, raw)).isEqualTo(old);
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
      case "zeros" -> {}
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
