package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker the test moves by hand; thread-safe. */
final class FakeTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  void set(long value) {
    nanos.set(value);
  }

  void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  /** Returns the absolute deadline {@code d} from now. */
  long in(Duration d) {
    return read() + d.toNanos();
  }
}
