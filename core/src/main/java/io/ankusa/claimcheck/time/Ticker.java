package io.ankusa.claimcheck.time;

/**
 * A source of monotonic time in nanoseconds; implementations are thread-safe.
 *
 * <p>Every class that reads a time takes one of these instead of calling {@link System#nanoTime()}
 * itself, so tests drive time instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {

  /** Returns the current monotonic time in nanoseconds (only differences are meaningful). */
  long read();

  /** Returns the ticker backed by {@link System#nanoTime()}. */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }

  /** The one system ticker, so configurations that use it compare equal. */
  enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
      return System.nanoTime();
    }
  }
}
