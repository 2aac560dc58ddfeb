package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.MicrometerTelemetry;
import io.ankusa.claimcheck.time.Ticker;
import org.junit.jupiter.api.Test;

class ReaderSettingsTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    ReaderSettings s = ReaderSettings.builder(3).build();
    assertThat(s.numStores()).isEqualTo(3);
    assertThat(s.maxInflight()).isEqualTo(64);
    assertThat(s.queueMax()).isEqualTo(1000);
    assertThat(s.maxConcurrentReads()).isZero();
    assertThat(s.cacheMaxBytes()).isEqualTo(64L * 1024 * 1024);
    assertThat(s.ticker()).isSameAs(Ticker.system());
    assertThat(s.telemetry()).isEqualTo(MicrometerTelemetry.global());
    assertThat(s.scheduler()).isSameAs(ReaderScheduler.system());
  }

  @Test
  void equalFieldsMakeEqualSettings() {
    ReaderSettings a = ReaderSettings.builder(2).maxInflight(8).build();
    assertThat(a).isEqualTo(ReaderSettings.builder(2).maxInflight(8).build());
    assertThat(a.toBuilder().build()).isEqualTo(a);
    assertThat(a).isNotEqualTo(ReaderSettings.builder(2).maxInflight(9).build());
    assertThat(a).isNotEqualTo(a.toBuilder().telemetry(ClaimCheckTelemetry.noop()).build());
  }

  @Test
  void invalidValuesFailNamingTheField() {
    assertThatThrownBy(() -> ReaderSettings.builder(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numStores");
    assertThatThrownBy(() -> ReaderSettings.builder(1).maxInflight(0).build())
        .hasMessageContaining("maxInflight");
    assertThatThrownBy(() -> ReaderSettings.builder(1).queueMax(-1).build())
        .hasMessageContaining("queueMax");
    assertThatThrownBy(() -> ReaderSettings.builder(1).maxConcurrentReads(-1).build())
        .hasMessageContaining("maxConcurrentReads");
    assertThatThrownBy(() -> ReaderSettings.builder(1).cacheMaxBytes(-1).build())
        .hasMessageContaining("cacheMaxBytes");
    assertThatThrownBy(
            () ->
                new ReaderSettings(
                    1,
                    1,
                    0,
                    0,
                    0,
                    null,
                    ClaimCheckTelemetry.noop(),
                    ReaderScheduler.system(),
                    Backoff.DEFAULT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ticker");
    assertThatThrownBy(
            () ->
                new ReaderSettings(
                    1,
                    1,
                    0,
                    0,
                    0,
                    io.ankusa.claimcheck.time.Ticker.system(),
                    ClaimCheckTelemetry.noop(),
                    ReaderScheduler.system(),
                    null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retry");
  }
}
