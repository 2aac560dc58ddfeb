package io.ankusa.claimcheck.internal.reader;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds how many requests a process serves at once, counting permits per owner thread;
 * thread-safe.
 *
 * <p>Invariants: {@code admitted} never exceeds {@code max}, and equals the sum of the holders'
 * counts once no admit or release is half done; a holder's count is written only by its own thread,
 * and read by another only in {@link #reclaimDead}, after its thread is seen dead (a thread's
 * writes happen-before another thread sees it dead), which drops it and its permits, so a dead
 * thread leaks permits only until the next tick. A thread's holder is registered once and kept
 * while it lives, so admit and release touch no shared map. With {@code max = 0} the gate admits
 * everything and counts nothing.
 */
final class RequestGate {

  /** The permits one thread holds. */
  private static final class Holder {
    int held;
  }

  private final int max;
  private final AtomicInteger admitted = new AtomicInteger();
  private final Map<Thread, Holder> owners = new ConcurrentHashMap<>();
  private final ThreadLocal<Holder> mine = new ThreadLocal<>();

  RequestGate(int max) {
    this.max = max;
  }

  boolean admit() {
    if (max == 0) {
      return true;
    }
    if (!count()) {
      return false;
    }
    holder().held++;
    return true;
  }

  /** Counts one permit owned by no thread (never reclaimed: its holder releases it). */
  boolean admitUnowned() {
    return max == 0 || count();
  }

  void releaseUnowned() {
    if (max != 0) {
      admitted.decrementAndGet();
    }
  }

  private boolean count() {
    int n;
    do {
      n = admitted.get();
      if (n >= max) {
        return false;
      }
    } while (!admitted.compareAndSet(n, n + 1));
    return true;
  }

  private Holder holder() {
    Holder h = mine.get();
    if (h == null) { // this thread's first admit; only dead threads' holders are ever dropped
      h = new Holder();
      mine.set(h);
      owners.put(Thread.currentThread(), h);
    }
    return h;
  }

  void release() {
    if (max == 0) {
      return;
    }
    Holder h = mine.get();
    if (h == null || h.held == 0) {
      return;
    }
    h.held--;
    admitted.decrementAndGet();
  }

  /** Drops the permits of threads that died holding them; returns how many were reclaimed. */
  int reclaimDead() {
    int reclaimed = 0;
    for (Map.Entry<Thread, Holder> e : owners.entrySet()) {
      if (!e.getKey().isAlive() && owners.remove(e.getKey(), e.getValue())) {
        int held = e.getValue().held;
        admitted.addAndGet(-held);
        reclaimed += held;
      }
    }
    return reclaimed;
  }

  int admitted() {
    return admitted.get();
  }
}
