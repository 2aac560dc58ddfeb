package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The write limit and the read limit judge the same size (the larger of a claim's stored and
 * uncompressed lengths), so with one value on both sides nothing written is refused on read: an
 * incompressible value just under the limit grew past it when compressed and was refused.
 */
class ByteLimitsTest {

  private static final int LIMIT = 64 << 10;

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
  void anIncompressibleValueUnderTheWriteLimitIsReadUnderTheSameReadLimit(String codec) {
    try (ClaimCheck writer = ClaimCheck.open(config(codec));
        ClaimCheck reader = ClaimCheck.open(config("none"))) {
      for (int length : new int[] {LIMIT - 1, LIMIT}) {
        byte[] value = random(length, length);
        ClaimRef ref = writer.checkIn(value);
        assertThat(Math.max(ref.length(), ref.rawLength())).isLessThanOrEqualTo(LIMIT);
        assertThat(redeem(reader, ref)).isEqualTo(value);
        assertThat(redeem(writer, ref)).isEqualTo(value);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
  void aCompressibleValueAtTheLimitIsStillCompressedAndAnyOverItIsRefused(String codec) {
    try (ClaimCheck cc = ClaimCheck.open(config(codec))) {
      byte[] zeros = new byte[LIMIT];
      ClaimRef ref = cc.checkIn(zeros);
      assertThat(ref.codec()).isEqualTo(Codec.valueOf(codec.toUpperCase(Locale.ROOT)));
      assertThat(ref.length()).isLessThan(LIMIT);
      assertThat(redeem(cc, ref)).isEqualTo(zeros);
      assertThatThrownBy(() -> cc.checkIn(new byte[LIMIT + 1]))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.REFUSED));
    }
  }

  private static Map<String, Object> config(String codec) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "memory:limits-" + STORE);
    m.put("claimcheck.compression.type", codec);
    m.put("claimcheck.write.max.bytes", String.valueOf(LIMIT));
    m.put("claimcheck.read.max.bytes", String.valueOf(LIMIT));
    return m;
  }

  private static final String STORE = UUID.randomUUID().toString();

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] redeem(ClaimCheck cc, ClaimRef ref) {
    return cc.redeem(ref, cc.ticker().read() + Duration.ofSeconds(10).toNanos()).join();
  }
}
