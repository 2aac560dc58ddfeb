package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.internal.reader.Limit.Outcome;
import org.junit.jupiter.api.Test;

class AimdLimitTest {

  private static final long MS = 1_000_000L;

  @Test
  void halvesAtMostOncePerBackoffAndNeverBelowOne() {
    Limit l = Limit.aimd(10, 100 * MS);
    assertThat(l.current()).isEqualTo(10);
    assertThat(l.onOutcome(Outcome.OVERLOAD, 0)).isEqualTo(5);
    assertThat(l.onOutcome(Outcome.OVERLOAD, 99 * MS)).isEqualTo(5);
    assertThat(l.onOutcome(Outcome.OVERLOAD, 199 * MS)).isEqualTo(2);
    assertThat(l.onOutcome(Outcome.OVERLOAD, 299 * MS)).isEqualTo(1);
    assertThat(l.onOutcome(Outcome.OVERLOAD, 399 * MS)).isEqualTo(1);
  }

  @Test
  void theFirstOverloadHalvesWhateverTheClockReads() {
    Limit l = Limit.aimd(8, 100 * MS);
    assertThat(l.onOutcome(Outcome.OVERLOAD, Long.MIN_VALUE + 5)).isEqualTo(4);
  }

  @Test
  void growsByOneAfterLimitSuccessesAndIgnoresIgnorable() {
    Limit l = Limit.aimd(4, 100 * MS);
    l.onOutcome(Outcome.OVERLOAD, 0);
    assertThat(l.current()).isEqualTo(2);
    l.onOutcome(Outcome.SUCCESS, 1);
    l.onOutcome(Outcome.IGNORE, 1);
    assertThat(l.current()).isEqualTo(2);
    assertThat(l.onOutcome(Outcome.SUCCESS, 1)).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      l.onOutcome(Outcome.SUCCESS, 2);
    }
    assertThat(l.current()).isEqualTo(4);
    for (int i = 0; i < 100; i++) {
      l.onOutcome(Outcome.SUCCESS, 3);
    }
    assertThat(l.current()).isEqualTo(4);
  }

  @Test
  void anOverloadRestartsTheSuccessCount() {
    Limit l = Limit.aimd(8, 0);
    l.onOutcome(Outcome.OVERLOAD, 0); // 4
    for (int i = 0; i < 3; i++) {
      l.onOutcome(Outcome.SUCCESS, 0);
    }
    l.onOutcome(Outcome.OVERLOAD, 1); // 2, count restarts
    l.onOutcome(Outcome.SUCCESS, 1);
    assertThat(l.current()).isEqualTo(2);
    l.onOutcome(Outcome.SUCCESS, 1);
    assertThat(l.current()).isEqualTo(3);
  }

  @Test
  void anOverloadInsideTheBackoffWindowStopsGrowthWithoutHalving() {
    Limit l = Limit.aimd(8, 100 * MS);
    l.onOutcome(Outcome.OVERLOAD, 0); // 4
    for (int i = 0; i < 3; i++) {
      l.onOutcome(Outcome.SUCCESS, MS);
    }
    assertThat(l.onOutcome(Outcome.OVERLOAD, 2 * MS)).as("no second halving").isEqualTo(4);
    l.onOutcome(Outcome.SUCCESS, 3 * MS);
    assertThat(l.current()).as("the success count restarted").isEqualTo(4);
    for (int i = 0; i < 3; i++) {
      l.onOutcome(Outcome.SUCCESS, 3 * MS);
    }
    assertThat(l.current()).isEqualTo(5);
  }

  @Test
  void aCeilingBelowOneIsRefused() {
    assertThatThrownBy(() -> Limit.aimd(0, 0)).hasMessageContaining("maxInflight");
  }
}
