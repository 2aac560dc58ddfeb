package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that tests advance by hand; thread-safe. */
public final class DrivenTicker implements Ticker {

  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }
}
