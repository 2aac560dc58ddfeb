package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Readers made by {@link ClaimReaders#create} are independent and stop when closed. */
class ClaimReadersTest {

  private final FakeTicker ticker = new FakeTicker();
  private final ManualScheduler scheduler = new ManualScheduler(ticker);
  private final RecordingTelemetry telemetry = new RecordingTelemetry();

  private ReaderSettings settings(int maxInflight) {
    return ReaderSettings.builder(1)
        .maxInflight(maxInflight)
        .ticker(ticker)
        .scheduler(scheduler)
        .telemetry(telemetry)
        .build();
  }

  @Test
  void eachCreatedReaderIsItsOwn() {
    ReaderSettings s = settings(6);
    FetchKey key = FetchKey.range("t", "ab", 0, 64);
    try (ClaimReader a = ClaimReaders.create(s);
        ClaimReader b = ClaimReaders.create(s)) {
      assertThat(a.stats().get(0).limit()).isEqualTo(6);
      a.fetch(
          key,
          0,
          () -> CompletableFuture.completedFuture(new byte[] {1}),
          ticker.in(Duration.ofSeconds(1)));
      assertThat(
              b.fetch(
                  key,
                  0,
                  () -> CompletableFuture.completedFuture(new byte[] {2}),
                  ticker.in(Duration.ofSeconds(1))))
          .as("b does not see a's cache")
          .isCompletedWithValueMatching(v -> v[0] == 2);
    }
  }

  @Test
  void closingAReaderCancelsItsTimersAndAnswersNothingMore() {
    ClaimReader r = ClaimReaders.create(settings(4));
    r.close();
    assertThat(scheduler.pending()).as("the stopped reader's tick is cancelled").isZero();
    assertThat(
            r.fetch(
                FetchKey.range("t", "ab", 0, 64),
                0,
                () -> CompletableFuture.completedFuture(new byte[] {1}),
                ticker.in(Duration.ofSeconds(1))))
        .isCompletedExceptionally();
  }
}
