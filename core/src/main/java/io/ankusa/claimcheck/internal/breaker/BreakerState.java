package io.ankusa.claimcheck.internal.breaker;

/**
 * A breaker's state: a small immutable value, swapped whole; thread-safe.
 *
 * <p>The allowed transitions are data: {@link #on(Event, long, long)} returns the next state for an
 * event, or this same instance when the event changes nothing.
 */
abstract sealed class BreakerState permits BreakerState.Closed, BreakerState.Open {

  /** What a store did. */
  enum Event {
    ANSWERED,
    COULD_NOT_ANSWER
  }

  static final Closed CLOSED = new Closed();

  /** Whether the store is to be skipped at {@code now}. */
  abstract boolean skips(long now);

  /** The next state after {@code event} at {@code now}, with a cooldown of {@code cooldown} ns. */
  abstract BreakerState on(Event event, long now, long cooldown);

  abstract String name();

  /** Closed: every store operation goes through. */
  static final class Closed extends BreakerState {
    @Override
    boolean skips(long now) {
      return false;
    }

    @Override
    BreakerState on(Event event, long now, long cooldown) {
      return event == Event.COULD_NOT_ANSWER ? new Open(now + cooldown) : this;
    }

    @Override
    String name() {
      return "closed";
    }
  }

  /**
   * Open until a fixed instant; after it the store is tried again while the state stays open, and
   * its next answer closes it (its next failure opens it for a fresh cooldown).
   */
  static final class Open extends BreakerState {
    final long until;

    Open(long until) {
      this.until = until;
    }

    @Override
    boolean skips(long now) {
      return now - until < 0;
    }

    @Override
    BreakerState on(Event event, long now, long cooldown) {
      return event == Event.ANSWERED ? CLOSED : new Open(now + cooldown);
    }

    @Override
    String name() {
      return "open";
    }
  }
}
