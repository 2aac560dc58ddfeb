package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The chaos run's values: what {@link ChaosIT}'s plaintext scan relies on holds for any seed. */
class ChaosValueTest {

  /**
   * Regression: an inline value's body could be shorter than the marker (about one seed in 200 for
   * id 1), so ChaosIT's check that its scan can find the marker failed for that seed.
   */
  @Test
  void everyValueHoldsTheWholeMarkerEvenTheShortestInlineOne() {
    SplittableRandom seeds = new SplittableRandom(20261204L);
    int inline = 0;
    for (int s = 0; s < 2_000; s++) {
      long seed = seeds.nextLong();
      for (long id = 0; id < 20; id++) {
        byte[] value = ChaosValue.of(seed, id);
        assertThat(ChaosStores.contains(value, ChaosValue.MARKER))
            .as("value %d of seed %d (%d bytes) holds the marker", id, seed, value.length)
            .isTrue();
        assertThat(ChaosValue.verify(seed, id, value)).isNull();
        if (value.length < 1024) {
          inline++;
        }
      }
    }
    // About one in seven is inline: the short ones were drawn, not avoided.
    assertThat(inline).isBetween(40_000 / 7 * 8 / 10, 40_000 / 7 * 12 / 10);
  }

  @Test
  void aValueDiffersFromEveryOtherIdsValue() {
    byte[] one = ChaosValue.of(7, 1);
    assertThat(ChaosValue.verify(7, 1, one)).isNull();
    assertThat(ChaosValue.verify(7, 2, one)).isNotNull();
    assertThat(ChaosValue.verify(8, 1, one)).isNotNull();
  }
}
