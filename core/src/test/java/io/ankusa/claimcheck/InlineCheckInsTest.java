package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.Runtimes;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStore.Op;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A check-in lets its write run on its own thread only while no other check-in on the same store
 * set is in flight (any handle): one writer alone is served inline, concurrent writers go through
 * the asynchronous client. The first PUT is held by the store's clock until the test lets it go.
 */
class InlineCheckInsTest {

  private final FakeTicker ticker = new FakeTicker();
  private final CountDownLatch firstHeld = new CountDownLatch(1);
  private final CompletableFuture<Void> release = new CompletableFuture<>();
  private final MemoryStore store =
      MemoryStores.create(
          "inline-check-ins-" + System.nanoTime(),
          (wait, then) -> {
            if (firstHeld.getCount() > 0) {
              firstHeld.countDown();
              release.thenRun(then); // the first PUT ends when the test says
            } else {
              then.run();
            }
          });
  private ClaimStores stores;
  private ClaimCheck first;
  private ClaimCheck second;

  @AfterEach
  void close() {
    release.complete(null);
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void aCheckInRunsInlineOnlyWhileNoOtherCheckInOnTheStoreSetIsInFlight() throws Exception {
    stores = ClaimStores.builder().ticker(ticker).add(store, Duration.ofSeconds(5)).build();
    ClaimReader reader =
        ClaimReaders.create(
            ReaderSettings.builder(stores.size())
                .ticker(ticker)
                .maxConcurrentReads(4)
                .scheduler((task, delay) -> () -> {})
                .build());
    Runtimes.Runtime rt = Runtimes.ofParts(stores, reader, ClaimCheckTelemetry.noop());
    ClaimCheckConfig config =
        new ClaimCheckConfig(
            Map.of(ClaimCheckConfig.STORES, "memory:unused", ClaimCheckConfig.TENANT, "acme"));
    first = new SharedClaimCheck(config, rt, ticker);
    second = new SharedClaimCheck(config, rt, ticker); // another handle, the same store set
    store.latency(Op.PUT, Duration.ofMillis(1)); // spent through the clock above

    CompletableFuture<ClaimRef> held =
        CompletableFuture.supplyAsync(() -> first.checkIn(random(64, 1)));
    assertThat(firstHeld.await(10, TimeUnit.SECONDS))
        .as("the first PUT reached the store")
        .isTrue();
    assertThat(store.lastInlineAllowance(Op.PUT))
        .as("alone, the first check-in let its write run on its thread")
        .isEqualTo(Long.MAX_VALUE);

    ClaimRef during = second.checkIn(random(64, 2));
    assertThat(store.lastInlineAllowance(Op.PUT))
        .as("with another check-in in flight, nothing runs inline")
        .isZero();
    assertThat(held).isNotDone();

    release.complete(null);
    ClaimRef firstRef = held.get(10, TimeUnit.SECONDS);
    assertThat(rt.checkInsInFlight.get()).as("every check-in counted out").isZero();

    second.checkInAll(java.util.List.of(random(64, 3)));
    assertThat(store.lastInlineAllowance(Op.PUT))
        .as("alone again: inline")
        .isEqualTo(Long.MAX_VALUE);
    assertThat(first.redeem(firstRef, ticker.read() + Duration.ofSeconds(5).toNanos()).join())
        .isEqualTo(random(64, 1));
    assertThat(first.redeem(during, ticker.read() + Duration.ofSeconds(5).toNanos()).join())
        .isEqualTo(random(64, 2));
  }
}
