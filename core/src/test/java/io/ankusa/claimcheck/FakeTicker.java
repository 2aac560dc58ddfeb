package io.ankusa.claimcheck;

import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that tests advance by hand; thread-safe. */
public final class FakeTicker implements Ticker {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  /** Moves time forward by {@code d}. */
  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  /** A memory-store clock that spends a wait by advancing this ticker, then completes at once. */
  public MemoryStore.HangClock hangClock() {
    return (wait, then) -> {
      advance(wait);
      then.run();
    };
  }
}
