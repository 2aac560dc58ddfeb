package io.ankusa.claimcheck.internal.breaker;

/**
 * Told of every open and close of a store's breaker, after the state changed; implementations must
 * be thread-safe and must not throw.
 */
@FunctionalInterface
public interface BreakerListener {

  /** The listener that ignores every transition. */
  BreakerListener NONE = (store, transition) -> {};

  /** Called once per transition of store {@code store}'s breaker, after the swap. */
  void onTransition(int store, Transition transition);

  /** A change of a breaker's state. */
  enum Transition {
    /** Closed (or open with its cooldown over) to open. */
    OPENED,
    /** Open to closed. */
    CLOSED
  }
}
