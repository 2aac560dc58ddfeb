package io.ankusa.claimcheck.internal.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The backoff's arithmetic: ceilings, full jitter, Retry-After, and the deadline rule. */
class BackoffTest {

  private static final long MS = 1_000_000L;

  private static Backoff drawing(double j) {
    return new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2), () -> j);
  }

  @Test
  void ceilingsDoubleFromTheBaseUpToTheCapWithoutOverflow() {
    Backoff b = drawing(0.5);
    assertThat(b.ceilingNanos(1)).isEqualTo(50 * MS);
    assertThat(b.ceilingNanos(2)).isEqualTo(100 * MS);
    assertThat(b.ceilingNanos(6)).isEqualTo(1600 * MS);
    assertThat(b.ceilingNanos(7)).isEqualTo(2000 * MS);
    assertThat(b.ceilingNanos(1000)).isEqualTo(2000 * MS);
  }

  @Test
  void theWaitIsTheDrawTimesTheCeiling() {
    assertThat(drawing(0.0).delayNanos(3, null, 10_000 * MS)).isZero();
    assertThat(drawing(0.25).delayNanos(3, null, 10_000 * MS)).isEqualTo(50 * MS);
    assertThat(drawing(7.0).delayNanos(1, null, 10_000 * MS))
        .as("clamped below the ceiling")
        .isLessThan(50 * MS)
        .isGreaterThan(49 * MS);
    assertThat(drawing(-1).delayNanos(1, null, 10_000 * MS)).isZero();
  }

  @Test
  void aRetryAfterThatFitsIsWaitedForPlusUpToOneBase() {
    Duration ra = Duration.ofSeconds(1);
    assertThat(drawing(0.5).delayNanos(1, ra, 5_000 * MS)).isEqualTo(1025 * MS);
    assertThat(drawing(0.5).delayNanos(1, ra, 1010 * MS))
        .as("jitter dropped to fit")
        .isEqualTo(1000 * MS);
  }

  @Test
  void aRetryAfterThatDoesNotFitFallsBackToThePlainBackoff() {
    assertThat(drawing(0.5).delayNanos(2, Duration.ofSeconds(60), 3_000 * MS)).isEqualTo(50 * MS);
  }

  @Test
  void noWaitStartsTheNextAttemptAtOrPastTheDeadline() {
    assertThat(drawing(0.5).delayNanos(1, null, 25 * MS)).isEqualTo(-1);
    assertThat(drawing(0.5).delayNanos(1, null, 25 * MS + 1)).isEqualTo(25 * MS);
    assertThat(drawing(0.0).delayNanos(1, null, 0)).isEqualTo(-1);
  }

  @Test
  void invalidSettingsNameTheField() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), Backoff.RANDOM))
        .hasMessageContaining("base");
    assertThatThrownBy(
            () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), Backoff.RANDOM))
        .hasMessageContaining("cap");
  }
}
