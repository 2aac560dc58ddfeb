package io.ankusa.claimcheck.store.memory;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * An in-memory claim store with injectable faults, for tests (core's test-jar, never the production
 * jar); thread-safe. Configured as {@code faulty:<name>} in {@code claimcheck.stores} ({@link
 * FaultyStoreProvider}), or made directly with {@link MemoryStores#create}.
 *
 * <p>Faults apply to the operations they name, in the order they were added, before the store is
 * touched: a fault that fails an operation leaves the contents unchanged.
 */
public interface MemoryStore extends ClaimStore {

  /** A store operation, for faults and counts. */
  enum Op {
    PUT,
    GET,
    DELETE,
    LIST
  }

  /** Makes every later {@code op} fail with {@code kind} until {@link #clearFaults()}. */
  void failAlways(Op op, StoreException.Kind kind);

  /** Makes the next {@code times} {@code op}s fail with {@code kind}, then behave again. */
  void failTimes(Op op, StoreException.Kind kind, int times);

  /**
   * Makes every later {@code op} hang until its timeout, then fail {@code UNAVAILABLE}: the store's
   * {@link HangClock} spends the timeout (a test's clock advances; a real one waits).
   */
  void hang(Op op);

  /** Adds {@code latency} (spent through the {@link HangClock}) to every later {@code op}. */
  void latency(Op op, Duration latency);

  /** Removes every fault and latency. */
  void clearFaults();

  /** Returns how many {@code op}s were asked of this store, faults included. */
  long count(Op op);

  /**
   * Returns what {@link io.ankusa.claimcheck.store.InlineCalls#remainingNanos()} said on the thread
   * of the latest {@code op} call (-1 before any): whether that caller allowed inline calls.
   */
  long lastInlineAllowance(Op op);

  /** Returns the keys held now. */
  Set<String> keys();

  /** Returns a copy of the object under {@code key}, or null. */
  byte[] object(String key);

  /** Makes later puts record their last-modified time on {@code clock} (default: system UTC). */
  void wallClock(Clock clock);

  /** Sets the last-modified time a listing reports for the object under {@code key}, if any. */
  void lastModified(String key, Instant at);

  /** Removes every object (faults and counts stay). */
  void clearObjects();

  /**
   * How a memory store spends time: a hang or a latency completes an operation after {@code wait}.
   * Tests pass one that advances their ticker and completes at once.
   */
  @FunctionalInterface
  interface HangClock {
    /** Runs {@code then} once {@code wait} has passed. */
    void after(Duration wait, Runnable then);
  }
}
