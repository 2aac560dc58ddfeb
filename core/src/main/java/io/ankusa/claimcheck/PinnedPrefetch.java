package io.ankusa.claimcheck;

import io.ankusa.claimcheck.ClaimCheck.Prefetch;
import io.ankusa.claimcheck.internal.cache.ClaimCache.Pin;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.redeem.Redeemer;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Prefetch} as a pin of the shared reader's cache under the key a redeem reads the claim
 * by; thread-safe (the pin is).
 */
final class PinnedPrefetch implements Prefetch {

  private final Pin pin;
  private final ClaimRef ref;
  private final SharedClaimCheck engine;

  private PinnedPrefetch(Pin pin, ClaimRef ref, SharedClaimCheck engine) {
    this.pin = pin;
    this.ref = ref;
    this.engine = engine;
  }

  /**
   * Registers {@code ref}'s pin in {@code reader}; null when there is nothing to prefetch into (no
   * cache, the claim cached already, or another prefetch holds it).
   */
  static Prefetch register(
      SharedClaimCheck engine, ClaimReader reader, ClaimRef ref, Runnable onRead) {
    Pin pin = reader.pin(Redeemer.keyOf(ref), p -> onRead.run());
    return pin == null ? null : new PinnedPrefetch(pin, ref, engine);
  }

  @Override
  public Start reserve() {
    return switch (pin.start(ref.length())) {
      case STARTED -> Start.STARTED;
      case GONE -> Start.GONE;
      case NO_ROOM -> Start.NO_ROOM;
    };
  }

  @Override
  public CompletableFuture<?> fetch(long deadlineNanos) {
    CompletableFuture<?> f;
    try {
      f = engine.warm(ref, deadlineNanos);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    pin.started();
    return f;
  }

  @Override
  public void release() {
    pin.release();
  }
}
