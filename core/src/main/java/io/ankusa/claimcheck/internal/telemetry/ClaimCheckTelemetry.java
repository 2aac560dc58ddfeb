package io.ankusa.claimcheck.internal.telemetry;

/**
 * A sink for what claim check does, one method per event; implementations must be thread-safe and
 * should return quickly, since the reader calls them on its read path.
 *
 * <p>An implementation may throw: whoever calls one on a hot path wraps it in {@link
 * #neverThrowing(ClaimCheckTelemetry)} first, so a broken sink can never break a read. The
 * signatures name no metrics library: {@link MicrometerTelemetry} maps them onto Micrometer, and
 * {@link #noop()} drops them.
 */
public interface ClaimCheckTelemetry {

  /** How one caller of the reader was answered; every caller is counted exactly once. */
  enum ReadOutcome {
    /** The caller's fetch went to the store (counted when the store request finishes). */
    STORE,
    /** The caller joined a fetch already under way and got its answer. */
    COALESCED,
    /**
     * The caller got no answer: the store's queue was full, its deadline passed, or the reader
     * closed. (A redeem refused by the request gate never reaches the reader and is not counted.)
     */
    SHED
  }

  /** How one check-in (a write of a pack) ended. */
  enum CheckInOutcome {
    /** The pack was written. */
    OK,
    /** The pack id was already taken; the writer minted a fresh one. */
    COLLISION,
    /** No store took the pack. */
    FAILED
  }

  /** Counts one reader caller, charged to {@code store}, answered as {@code outcome}. */
  void read(int store, ReadOutcome outcome);

  /** Reports that the reader's adaptive limit for {@code store} is now {@code newLimit}. */
  void limitChanged(int store, int newLimit);

  /** Reports one store's reader state; the reader calls it every second per store it read from. */
  void storeState(int store, int limit, int inflight, int queued);

  /** Reports that the breaker of {@code store} opened. */
  void breakerOpened(int store);

  /** Reports that the breaker of {@code store} closed. */
  void breakerClosed(int store);

  /** Reports one check-in's outcome, the store that took it (-1 when none did), and its latency. */
  void checkIn(CheckInOutcome outcome, int store, long nanos);

  /** Returns a sink that drops every event. */
  static ClaimCheckTelemetry noop() {
    return NoopTelemetry.INSTANCE;
  }

  /**
   * Returns {@code delegate} wrapped so that no call ever throws: an exception from it is dropped
   * (and logged once per wrapper). Wrapping an already wrapped sink returns it unchanged.
   */
  static ClaimCheckTelemetry neverThrowing(ClaimCheckTelemetry delegate) {
    return NeverThrowingTelemetry.wrap(delegate);
  }
}
