package io.ankusa.claimcheck.internal.breaker;

import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.Objects;

/** Creates breakers; thread-safe (stateless). */
public final class Breakers {

  private Breakers() {}

  /**
   * Returns a new closed breaker for store {@code store} that stays open for {@code cooldown} after
   * the store could not answer, telling {@code listener} of each open and close.
   */
  public static Breaker fixedCooldown(
      int store, Duration cooldown, Ticker ticker, BreakerListener listener) {
    if (cooldown.isNegative()) {
      throw new IllegalArgumentException("cooldown must not be negative: " + cooldown);
    }
    return new StoreBreaker(
        store,
        cooldown.toNanos(),
        Objects.requireNonNull(ticker, "ticker"),
        Objects.requireNonNull(listener, "listener"));
  }
}
