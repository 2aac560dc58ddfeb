package io.ankusa.claimcheck.internal.reader;

/**
 * How many store requests may run at once against one store, adjusted by their outcomes; an
 * implementation need not be thread-safe: its owner serializes every call (the reader calls one
 * under its store's lock).
 *
 * <p>A tiny contract in the style of Netflix's concurrency-limits: the reader asks {@link
 * #current()} before it starts a request and reports each finished one to {@link #onOutcome}.
 */
public interface Limit {

  /** What a finished store request says about the store's capacity. */
  enum Outcome {
    /** The store answered (a missing key is an answer). */
    SUCCESS,
    /** The store throttled or could not answer: send less. */
    OVERLOAD,
    /** Says nothing about load (such as a 403). */
    IGNORE
  }

  /** Returns the current limit, always >= 1. */
  int current();

  /**
   * Records one finished request at {@code nowNanos} (on the reader's ticker); returns the limit
   * after it.
   */
  int onOutcome(Outcome outcome, long nowNanos);

  /**
   * Returns an AIMD limit that starts at {@code max}, halves (down to 1) on an overload at most
   * once per {@code backoffNanos}, and grows by one after {@code limit} successes with no overload
   * between them, up to {@code max}.
   */
  static Limit aimd(int max, long backoffNanos) {
    return new AimdLimit(max, backoffNanos);
  }
}
