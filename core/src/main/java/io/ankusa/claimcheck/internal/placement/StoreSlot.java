package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.internal.breaker.Breaker;
import io.ankusa.claimcheck.store.ClaimStore;
import java.time.Duration;

/** One store of a set: its index, the store, its per-operation deadline and its breaker. */
record StoreSlot(int index, ClaimStore store, Duration opDeadline, Breaker breaker) {

  /** The timeout of one operation started at {@code now} under absolute {@code deadline}. */
  Duration timeout(long now, long deadline) {
    return Duration.ofNanos(Math.min(opDeadline.toNanos(), deadline - now));
  }
}
