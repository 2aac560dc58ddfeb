package io.ankusa.claimcheck.reader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The reference counting of shared readers. */
class ClaimReadersTest {

  private final FakeTicker ticker = new FakeTicker();
  private final ManualScheduler scheduler = new ManualScheduler(ticker);
  private final RecordingTelemetry telemetry = new RecordingTelemetry();

  private ReaderSettings settings(int maxInflight) {
    return ReaderSettings.builder(1).maxInflight(maxInflight).ticker(ticker).scheduler(scheduler)
        .telemetry(telemetry).build();
  }

  @Test
  void equalSettingsShareOneReaderUntilTheLastHandleCloses() {
    ReaderSettings s = settings(4);
    ClaimReader a = ClaimReaders.acquire(s);
    ClaimReader b = ClaimReaders.acquire(s.toBuilder().build());
    assertThat(ClaimReaders.sharedRefs(s)).isEqualTo(2);
    FetchKey key = FetchKey.bytes("t", "ab", 0);
    a.fetch(key, 0, () -> CompletableFuture.completedFuture(new byte[] {1}), ticker.in(
        Duration.ofSeconds(1)));
    assertThat(b.fetch(key, 0, () -> CompletableFuture.failedFuture(new AssertionError()),
        ticker.in(Duration.ofSeconds(1)))).as("b sees a's cache: same reader")
        .isCompletedWithValueMatching(v -> v.length == 1 && v[0] == 1);

    a.close();
    a.close();
    assertThat(ClaimReaders.sharedRefs(s)).as("closing a handle twice counts once").isEqualTo(1);
    assertThat(b.stats()).containsKey(0);
    assertThat(b.fetch(key, 0, () -> CompletableFuture.failedFuture(new AssertionError()),
        ticker.in(Duration.ofSeconds(1)))).isCompletedWithValueMatching(v -> v[0] == 1);
    assertThat(a.fetch(key, 0, () -> CompletableFuture.failedFuture(new AssertionError()),
        ticker.in(Duration.ofSeconds(1)))).as("a closed handle answers nothing")
        .isCompletedExceptionally();

    b.close();
    assertThat(ClaimReaders.sharedRefs(s)).isZero();
    int timers = scheduler.pending();
    assertThat(timers).as("the stopped reader's tick is cancelled").isZero();

    ClaimReader c = ClaimReaders.acquire(s);
    assertThat(c.fetch(key, 0, () -> CompletableFuture.completedFuture(new byte[] {2}),
        ticker.in(Duration.ofSeconds(1)))).as("a fresh reader, with an empty cache")
        .isCompletedWithValueMatching(v -> v[0] == 2);
    c.close();
  }

  @Test
  void differentSettingsGetDifferentReaders() {
    ClaimReader a = ClaimReaders.acquire(settings(4));
    ClaimReader b = ClaimReaders.acquire(settings(5));
    try {
      assertThat(a.stats().get(0).limit()).isEqualTo(4);
      assertThat(b.stats().get(0).limit()).isEqualTo(5);
      assertThat(ClaimReaders.sharedRefs(settings(4))).isEqualTo(1);
    } finally {
      a.close();
      b.close();
    }
  }

  @Test
  void aPrivateReaderIsNotShared() {
    ReaderSettings s = settings(6);
    try (ClaimReader r = ClaimReaders.create(s)) {
      assertThat(r.stats().get(0).limit()).isEqualTo(6);
      assertThat(ClaimReaders.sharedRefs(s)).isZero();
    }
  }
}
