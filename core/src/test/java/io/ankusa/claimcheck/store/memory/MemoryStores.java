package io.ankusa.claimcheck.store.memory;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Creates fault-injecting memory stores, and holds the process-wide named ones that {@code
 * faulty:<name>} in {@code claimcheck.stores} refers to; thread-safe. Test code only.
 */
public final class MemoryStores {

  private static final Map<String, MemoryStore> NAMED = new ConcurrentHashMap<>();

  private MemoryStores() {}

  /** The hang clock that really waits (on the common pool's delayed executor). */
  public static MemoryStore.HangClock realTime() {
    return (wait, then) ->
        CompletableFuture.delayedExecutor(wait.toNanos(), TimeUnit.NANOSECONDS).execute(then);
  }

  /** Returns a new, empty store outside the registry, spending time through {@code clock}. */
  public static MemoryStore create(String name, MemoryStore.HangClock clock) {
    return new FaultyStore(
        Objects.requireNonNull(name, "name"), Objects.requireNonNull(clock, "clock"));
  }

  /**
   * Returns the process-wide store named {@code name}, creating it (real time) on first use, so
   * every surface configured with {@code faulty:<name>} and the test share objects and faults.
   */
  public static MemoryStore named(String name) {
    return NAMED.computeIfAbsent(name, n -> create(n, realTime()));
  }

  /** Forgets the process-wide store named {@code name} (tests use it to start clean). */
  public static void forget(String name) {
    NAMED.remove(name);
  }
}
