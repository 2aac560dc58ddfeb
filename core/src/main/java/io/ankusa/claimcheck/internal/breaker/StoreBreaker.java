package io.ankusa.claimcheck.internal.breaker;

import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A breaker with a fixed cooldown; thread-safe and lock-free.
 *
 * <p>Invariants: the state is one immutable {@link BreakerState} held in an atomic reference and
 * replaced only by compare-and-set, so concurrent events never lose a transition; the listener is
 * told of a transition only by the thread whose swap made it, after the swap, and exactly once; a
 * re-open of an already open breaker (a fresh cooldown) is not a transition.
 */
final class StoreBreaker implements Breaker {

  private final int store;
  private final long cooldownNanos;
  private final Ticker ticker;
  private final BreakerListener listener;
  private final AtomicReference<BreakerState> state = new AtomicReference<>(BreakerState.CLOSED);

  StoreBreaker(int store, long cooldownNanos, Ticker ticker, BreakerListener listener) {
    this.store = store;
    this.cooldownNanos = cooldownNanos;
    this.ticker = ticker;
    this.listener = listener;
  }

  @Override
  public boolean isOpen() {
    return state.get().skips(ticker.read());
  }

  @Override
  public void onAnswer() {
    apply(BreakerState.Event.ANSWERED);
  }

  @Override
  public void onCouldNotAnswer() {
    apply(BreakerState.Event.COULD_NOT_ANSWER);
  }

  @Override
  public String state() {
    return state.get().name();
  }

  private void apply(BreakerState.Event event) {
    long now = ticker.read();
    BreakerState prev;
    BreakerState next;
    do {
      prev = state.get();
      next = prev.on(event, now, cooldownNanos);
      if (next == prev) {
        return;
      }
    } while (!state.compareAndSet(prev, next));
    if (prev.getClass() != next.getClass()) {
      try {
        listener.onTransition(
            store,
            next instanceof BreakerState.Open
                ? BreakerListener.Transition.OPENED
                : BreakerListener.Transition.CLOSED);
      } catch (RuntimeException ignored) {
        // A listener must not break the store path.
      }
    }
  }

  @Override
  public String toString() {
    return "Breaker[store=" + store + ", " + state() + "]";
  }
}
