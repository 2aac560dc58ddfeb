package io.ankusa.claimcheck.internal.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.CheckInOutcome;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MicrometerTelemetryTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ClaimCheckTelemetry telemetry = MicrometerTelemetry.of(registry);

  private double reads(String store, String outcome) {
    var c = registry.find("claimcheck.read").tag("store", store).tag("outcome", outcome).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void readsAreCountedByStoreAndOutcome() {
    telemetry.read(0, ReadOutcome.STORE);
    telemetry.read(0, ReadOutcome.COALESCED);
    telemetry.read(0, ReadOutcome.COALESCED);
    telemetry.read(1, ReadOutcome.SHED);
    assertThat(reads("0", "store")).isEqualTo(1);
    assertThat(reads("0", "coalesced")).isEqualTo(2);
    assertThat(reads("0", "shed")).isZero();
    assertThat(reads("1", "shed")).isEqualTo(1);
  }

  @Test
  void storeStateAndLimitChangesAreGaugesPerStore() {
    telemetry.storeState(2, 8, 3, 5);
    assertThat(registry.get("claimcheck.read.limit").tag("store", "2").gauge().value())
        .isEqualTo(8);
    assertThat(registry.get("claimcheck.read.inflight").tag("store", "2").gauge().value())
        .isEqualTo(3);
    assertThat(registry.get("claimcheck.read.queued").tag("store", "2").gauge().value())
        .isEqualTo(5);
    telemetry.limitChanged(2, 4);
    assertThat(registry.get("claimcheck.read.limit").tag("store", "2").gauge().value())
        .isEqualTo(4);
    MicrometerTelemetry.of(registry).storeState(2, 2, 1, 0);
    assertThat(registry.get("claimcheck.read.limit").tag("store", "2").gauge().value())
        .as("a second instance on the registry updates the same gauge")
        .isEqualTo(2);
    assertThat(MicrometerTelemetry.of(registry)).isEqualTo(telemetry);
  }

  @Test
  void breakerTransitionsAndCheckInsAreRecorded() {
    telemetry.breakerOpened(1);
    telemetry.breakerOpened(1);
    telemetry.breakerClosed(1);
    assertThat(
            registry
                .get("claimcheck.store.breaker")
                .tag("store", "1")
                .tag("transition", "opened")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(
            registry
                .get("claimcheck.store.breaker")
                .tag("store", "1")
                .tag("transition", "closed")
                .counter()
                .count())
        .isEqualTo(1);
    telemetry.checkIn(CheckInOutcome.OK, 0, TimeUnit.MILLISECONDS.toNanos(3));
    telemetry.checkIn(CheckInOutcome.FAILED, -1, TimeUnit.MILLISECONDS.toNanos(7));
    var ok = registry.get("claimcheck.checkin").tag("outcome", "ok").tag("store", "0").timer();
    assertThat(ok.count()).isEqualTo(1);
    assertThat(ok.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3);
    assertThat(
            registry
                .get("claimcheck.checkin")
                .tag("outcome", "failed")
                .tag("store", "-1")
                .timer()
                .count())
        .isEqualTo(1);
  }
}
