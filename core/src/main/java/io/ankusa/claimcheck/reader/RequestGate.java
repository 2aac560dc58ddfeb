package io.ankusa.claimcheck.reader;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds how many requests a process serves at once, counting permits per owner thread;
 * thread-safe.
 *
 * <p>Invariants: {@code admitted} equals the sum of the permits in {@code owners} once no admit
 * or release is half done, and never exceeds {@code max}; only a thread itself changes its own
 * entry, except {@link #reclaimDead}, which removes the entries of threads no longer alive (they
 * can no longer release), so a dead thread leaks its permits only until the next tick. With
 * {@code max = 0} the gate admits everything and counts nothing.
 */
final class RequestGate {

  private final int max;
  private final AtomicInteger admitted = new AtomicInteger();
  private final Map<Thread, Integer> owners = new ConcurrentHashMap<>();

  RequestGate(int max) {
    this.max = max;
  }

  boolean admit() {
    if (max == 0) {
      return true;
    }
    int n;
    do {
      n = admitted.get();
      if (n >= max) {
        return false;
      }
    } while (!admitted.compareAndSet(n, n + 1));
    Thread t = Thread.currentThread();
    Integer held = owners.get(t);
    owners.put(t, held == null ? 1 : held + 1);
    return true;
  }

  void release() {
    if (max == 0) {
      return;
    }
    Thread t = Thread.currentThread();
    Integer held = owners.get(t);
    if (held == null) {
      return;
    }
    if (held == 1) {
      owners.remove(t);
    } else {
      owners.put(t, held - 1);
    }
    admitted.decrementAndGet();
  }

  /** Drops the permits of threads that died holding them; returns how many were reclaimed. */
  int reclaimDead() {
    int reclaimed = 0;
    for (Map.Entry<Thread, Integer> e : owners.entrySet()) {
      Thread t = e.getKey();
      if (!t.isAlive() && owners.remove(t, e.getValue())) {
        admitted.addAndGet(-e.getValue());
        reclaimed += e.getValue();
      }
    }
    return reclaimed;
  }

  int admitted() {
    return admitted.get();
  }
}
