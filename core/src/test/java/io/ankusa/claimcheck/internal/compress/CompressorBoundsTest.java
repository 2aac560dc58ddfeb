package io.ankusa.claimcheck.internal.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.ZstdInputStream;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Decompression stops at its bound with a {@link CorruptPackException}, never an OOM. */
class CompressorBoundsTest {

  private static final int DEFAULT_MAX = (int) ClaimCheckConfig.DEFAULT_MAX_BYTES;

  @ParameterizedTest
  @EnumSource(
      value = Codec.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void aClaimMustInflateToExactlyItsRecordedLength(Codec codec) {
    byte[] raw = CompressorWireTest.content(200_000, "text");
    byte[] stored = Compressor.compress(codec, raw);
    assertThat(Compressor.decompress(codec, stored, raw.length, raw.length)).isEqualTo(raw);

    assertThatThrownBy(() -> Compressor.decompress(codec, stored, raw.length - 1, DEFAULT_MAX))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining("inflates past " + (raw.length - 1))
        .hasMessageContaining("the uncompressed length its ref records");
    assertThatThrownBy(() -> Compressor.decompress(codec, stored, 10, DEFAULT_MAX))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining("inflates past 10");
    assertThatThrownBy(() -> Compressor.decompress(codec, stored, raw.length + 1, DEFAULT_MAX))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining(
            "inflates to " + raw.length + " bytes, its ref records " + (raw.length + 1));
  }

  @ParameterizedTest
  @EnumSource(
      value = Codec.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void withoutARecordedLengthTheReadLimitBoundsIt(Codec codec) {
    byte[] raw = new byte[3 << 20]; // zeros: every codec's best case
    byte[] stored = Compressor.compress(codec, raw);
    assertThat(Compressor.decompress(codec, stored, ClaimRef.UNKNOWN_RAW_LENGTH, raw.length))
        .isEqualTo(raw);
    assertThatThrownBy(
            () -> Compressor.decompress(codec, stored, ClaimRef.UNKNOWN_RAW_LENGTH, raw.length - 1))
        .isInstanceOf(PastReadLimitException.class) // not corrupt: a higher limit could read it
        .hasMessageContaining("inflates past " + (raw.length - 1))
        .hasMessageContaining(ClaimCheckConfig.READ_MAX_BYTES);
    assertThatThrownBy(() -> Compressor.decompress(codec, stored, ClaimRef.UNKNOWN_RAW_LENGTH, 1))
        .isInstanceOf(PastReadLimitException.class)
        .hasMessageContaining("inflates past 1 ");
  }

  @Test
  void aRecordedLengthPastTheLimitIsRefusedBeforeInflating() {
    byte[] stored = Compressor.compress(Codec.ZSTD, new byte[100]);
    assertThatThrownBy(() -> Compressor.decompress(Codec.ZSTD, stored, 101, 100))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining("records 101 uncompressed bytes, outside 0..100");
  }

  /**
   * The case: about 70 KB of zstd that inflate to 2.2 GB. Before bounds it took the
   * consumer's heap; now it costs at most the limit: corrupt when the ref records a smaller raw
   * length, refused (past this reader's limit) when it records none.
   */
  @Test
  void theSeventyKilobyteZstdBombFailsFast() throws Exception {
    int blocks = 16_785;
    byte[] bomb = ZstdBomb.frame(blocks);
    assertThat(bomb.length).isBetween(60_000, 70_000);
    assertThat(ZstdBomb.inflated(blocks)).isGreaterThan(2_200_000_000L);
    // It is a real bomb: zstd itself inflates it to zeros, without end in sight.
    try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(bomb))) {
      byte[] first = in.readNBytes(16 << 20);
      assertThat(first).hasSize(16 << 20);
      assertThat(first).containsOnly(0);
    }

    // A version-1 ref (raw length unknown): stops at the default read limit, 256 MiB.
    assertThatThrownBy(
            () -> Compressor.decompress(Codec.ZSTD, bomb, ClaimRef.UNKNOWN_RAW_LENGTH, DEFAULT_MAX))
        .isInstanceOf(PastReadLimitException.class)
        .hasMessageContaining("inflates past " + DEFAULT_MAX);
    // A version-2 ref records the raw length: stops there.
    assertThatThrownBy(() -> Compressor.decompress(Codec.ZSTD, bomb, 70_000, DEFAULT_MAX))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining("inflates past 70000");
  }

  @ParameterizedTest
  @EnumSource(
      value = Codec.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void truncatedOrDamagedStreamsAreCorrupt(Codec codec) {
    byte[] raw = CompressorWireTest.content(100_000, "text");
    byte[] stored = Compressor.compress(codec, raw);
    for (int cut : new int[] {0, 1, 3, stored.length / 2, stored.length - 1}) {
      byte[] truncated = Arrays.copyOf(stored, cut);
      assertThatThrownBy(() -> Compressor.decompress(codec, truncated, raw.length, DEFAULT_MAX))
          .as("%s cut to %d bytes", codec, cut)
          .isInstanceOf(CorruptPackException.class);
    }
    if (codec == Codec.GZIP) {
      return; // java.util.zip, like Kafka's gzip reader, ignores bytes after a complete member
    }
    byte[] appended = Arrays.copyOf(stored, stored.length + 3);
    assertThatThrownBy(() -> Compressor.decompress(codec, appended, raw.length, DEFAULT_MAX))
        .isInstanceOf(CorruptPackException.class);
  }
}
