package io.ankusa.claimcheck.internal.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.CheckInOutcome;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NeverThrowingTelemetryTest {

  /** A sink that counts calls and then throws. */
  static final class Throwing implements ClaimCheckTelemetry {
    final AtomicInteger calls = new AtomicInteger();

    private void boom() {
      calls.incrementAndGet();
      throw new IllegalStateException("broken sink");
    }

    @Override
    public void read(int store, ReadOutcome outcome) {
      boom();
    }

    @Override
    public void limitChanged(int store, int newLimit) {
      boom();
    }

    @Override
    public void storeState(int store, int limit, int inflight, int queued) {
      boom();
    }

    @Override
    public void breakerOpened(int store) {
      boom();
    }

    @Override
    public void breakerClosed(int store) {
      boom();
    }

    @Override
    public void checkIn(CheckInOutcome outcome, int store, long nanos) {
      throw new NoClassDefFoundError("missing");
    }
  }

  @Test
  void everyEventReachesTheSinkAndNothingThrows() {
    Throwing sink = new Throwing();
    ClaimCheckTelemetry safe = ClaimCheckTelemetry.neverThrowing(sink);
    assertThatCode(
            () -> {
              safe.read(0, ReadOutcome.STORE);
              safe.limitChanged(0, 1);
              safe.storeState(0, 1, 0, 0);
              safe.breakerOpened(0);
              safe.breakerClosed(0);
              safe.checkIn(CheckInOutcome.OK, 0, 1);
            })
        .doesNotThrowAnyException();
    assertThat(sink.calls).hasValue(5);
  }

  @Test
  void wrappingIsIdempotentAndEqualByDelegate() {
    Throwing sink = new Throwing();
    ClaimCheckTelemetry safe = ClaimCheckTelemetry.neverThrowing(sink);
    assertThat(ClaimCheckTelemetry.neverThrowing(safe)).isSameAs(safe);
    assertThat(ClaimCheckTelemetry.neverThrowing(sink)).isEqualTo(safe).hasSameHashCodeAs(safe);
    assertThat(ClaimCheckTelemetry.neverThrowing(ClaimCheckTelemetry.noop()))
        .isSameAs(ClaimCheckTelemetry.noop());
  }
}
