package io.ankusa.claimcheck.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Regression: Kafka Streams never closes the default serdes it creates, so their claim-check
 * handles stayed open after {@code KafkaStreams.close()} (8 per app in StreamsIT) and kept the
 * shared stores and reader running until the JVM exited.
 *
 * <p>An IT rather than a unit test because it waits for the garbage collector, which no clock
 * drives.
 */
class UnclosedHandleReleaseIT {

  private static final Ticker TICKER = Ticker.system();

  private static ClaimCheckConfig config() {
    return new ClaimCheckConfig(
        Map.of("claimcheck.stores", "memory:unclosed-" + UUID.randomUUID()));
  }

  @Test
  void aHandleDroppedWithoutCloseIsReleasedOnceUnreachable() throws InterruptedException {
    ClaimCheckConfig config = config();
    Runtimes.Key key = Runtimes.key(config, null, TICKER);
    ClaimCheck kept = ClaimCheck.open(config, null, TICKER);
    openAndDrop(config, 3);
    assertThat(handles(key)).isEqualTo(4);

    long until = System.nanoTime() + 20_000_000_000L;
    while (handles(key) > 1 && System.nanoTime() < until) {
      System.gc();
      Thread.sleep(20);
    }
    assertThat(handles(key)).as("the dropped handles are released").isEqualTo(1);
    // The kept handle still works on the runtime the dropped ones shared.
    assertThat(
            kept.redeem(kept.checkIn(new byte[] {1, 2, 3}), TICKER.read() + 5_000_000_000L).join())
        .containsExactly(1, 2, 3);

    kept.close();
    kept.close(); // idempotent: released once
    assertThat(handles(key)).isZero();
  }

  /** How many open handles the runtime for {@code key} has; 0 when none is open. */
  private static int handles(Runtimes.Key key) {
    synchronized (Runtimes.class) {
      Runtimes.Runtime rt = Runtimes.SHARED.get(key);
      return rt == null ? 0 : rt.handles;
    }
  }

  private static void openAndDrop(ClaimCheckConfig config, int n) {
    for (int i = 0; i < n; i++) {
      ClaimCheck.open(config, null, TICKER).checkIn(new byte[] {9});
    }
  }
}
