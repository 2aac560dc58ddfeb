package io.ankusa.claimcheck.internal.breaker;

/**
 * One store's breaker: whether later writes skip the store and later reads search it last;
 * implementations are thread-safe and lock-free.
 *
 * <p>It opens when the store could not answer (timeout, refused, reset, 5xx) — never on a 403, a
 * missing key or a throttled answer — and stays open for a fixed cooldown; any answer from the
 * store closes it. A new breaker starts closed, so a restart closes them all.
 */
public interface Breaker {

  /** Whether the store is to be skipped by writes and searched last by reads, now. */
  boolean isOpen();

  /** Records that the store answered (found, missing, forbidden, throttled, already exists). */
  void onAnswer();

  /** Records that the store could not answer; opens the breaker for the cooldown. */
  void onCouldNotAnswer();

  /** Returns the state's name, {@code closed} or {@code open}, for messages and tests. */
  String state();
}
