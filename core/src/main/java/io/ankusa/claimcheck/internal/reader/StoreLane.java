package io.ankusa.claimcheck.internal.reader;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One store's slots: its adaptive limit, the store requests running against it and the FIFO queue
 * of fetches waiting for a slot; thread-safe (one lock, which also guards the state of every {@link
 * Flight} charged to this store).
 *
 * <p>Invariants, all under the lock: a flight is started only while {@code inflight < limit} (after
 * the limit halves, running requests may exceed it until enough finish); {@code queue.size() <=
 * queueMax}; the queue is non-empty only while no slot is free, and a freed slot goes to the oldest
 * queued flight that still has a caller waiting; queued flights whose callers all gave up are
 * dropped, never started; a retry of a flight is admitted exactly like a new flight (run, queue or
 * shed), and a flight goes into BACKOFF only while a caller waits and its next attempt can start
 * before the latest caller's deadline. Nothing here calls out (no fetch function, no future, no
 * telemetry), so the lock is held only for bookkeeping.
 */
final class StoreLane {

  /** What {@link #offer} or {@link #resume} did with a flight. */
  enum Admission {
    RUN,
    QUEUED,
    SHED,
    /** (resume only) nobody waits any more: the flight is now DONE without another attempt. */
    DROPPED,
    /** (resume only) the flight was no longer backing off: someone else ended it. */
    GONE
  }

  /**
   * What a finished store request changed: flights to start, flights dropped, the new limit (-1 if
   * unchanged), and whether the finished flight went into BACKOFF instead of DONE.
   */
  record Dispatch(List<Flight> toRun, List<Flight> dropped, int newLimit, boolean retrying) {}

  final int store;
  private final Limit limit;
  private final int queueMax;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Flight> queue = new ArrayDeque<>();
  private int inflight;
  private volatile boolean touched;

  StoreLane(int store, Limit limit, int queueMax) {
    this.store = store;
    this.limit = limit;
    this.queueMax = queueMax;
  }

  /** Adds {@code c} to {@code f} unless {@code f} is done; returns whether it joined. */
  boolean join(Flight f, Caller c) {
    lock.lock();
    try {
      if (f.state == Flight.State.DONE) {
        return false;
      }
      f.callers.add(c);
      f.pending++;
      if (c.deadlineNanos - f.latestDeadline > 0) {
        f.latestDeadline = c.deadlineNanos;
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Starts {@code f} if a slot is free, else queues it if there is room, else sheds it (DONE). */
  Admission offer(Flight f) {
    lock.lock();
    try {
      return admit(f);
    } finally {
      lock.unlock();
    }
  }

  private Admission admit(Flight f) { // under the lock
    touched = true;
    if (inflight < limit.current()) {
      inflight++;
      f.state = Flight.State.RUNNING;
      return Admission.RUN;
    }
    if (queue.size() < queueMax) {
      queue.addLast(f);
      f.state = Flight.State.QUEUED;
      return Admission.QUEUED;
    }
    f.state = Flight.State.DONE;
    return Admission.SHED;
  }

  /**
   * Starts the next attempt of BACKOFF flight {@code f} like a new flight (run, queue or shed),
   * unless nobody waits for it any more (DROPPED) or it is no longer backing off (GONE).
   */
  Admission resume(Flight f) {
    lock.lock();
    try {
      if (f.state != Flight.State.BACKOFF) {
        return Admission.GONE;
      }
      if (f.pending == 0) {
        f.state = Flight.State.DONE;
        return Admission.DROPPED;
      }
      return admit(f);
    } finally {
      lock.unlock();
    }
  }

  /** Ends {@code f} if it is backing off (DROPPED), else leaves it alone (GONE). */
  Admission endBackoff(Flight f) {
    lock.lock();
    try {
      if (f.state != Flight.State.BACKOFF) {
        return Admission.GONE;
      }
      f.state = Flight.State.DONE;
      return Admission.DROPPED;
    } finally {
      lock.unlock();
    }
  }

  /** Marks NEW flight {@code f} DONE without a store request, so no caller joins it any more. */
  void retire(Flight f) {
    lock.lock();
    try {
      f.state = Flight.State.DONE;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records that one caller of {@code f} gave up; returns true if that ended {@code f} (its last
   * waiting caller gave up while it was queued or backing off, not while a request ran).
   */
  boolean abandon(Flight f) {
    lock.lock();
    try {
      f.pending--;
      if (f.pending == 0 && (f.state == Flight.State.QUEUED || f.state == Flight.State.BACKOFF)) {
        if (f.state == Flight.State.QUEUED) {
          queue.remove(f);
        }
        f.state = Flight.State.DONE;
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Finishes the running attempt of {@code f} with {@code outcome} at {@code nowNanos}: frees its
   * slot, feeds the limit, and hands the freed slots to queued flights. With {@code retryDelay} >=
   * 0 (the attempt failed retriably) the flight goes into BACKOFF if a caller still waits and
   * {@code nowNanos + retryDelay} is before the latest caller's deadline; otherwise it is DONE.
   */
  Dispatch finish(Flight f, Limit.Outcome outcome, long nowNanos, long retryDelay) {
    List<Flight> toRun = new ArrayList<>(1);
    List<Flight> dropped = new ArrayList<>(0);
    lock.lock();
    try {
      inflight--;
      f.attempts++;
      boolean retrying =
          retryDelay >= 0 && f.pending > 0 && nowNanos + retryDelay - f.latestDeadline < 0;
      f.state = retrying ? Flight.State.BACKOFF : Flight.State.DONE;
      int before = limit.current();
      int after = limit.onOutcome(outcome, nowNanos);
      while (inflight < after && !queue.isEmpty()) {
        Flight next = queue.pollFirst();
        if (next.pending == 0) {
          next.state = Flight.State.DONE;
          dropped.add(next);
        } else {
          next.state = Flight.State.RUNNING;
          inflight++;
          toRun.add(next);
        }
      }
      return new Dispatch(toRun, dropped, after == before ? -1 : after, retrying);
    } finally {
      lock.unlock();
    }
  }

  /** Removes every queued flight (marking each DONE) and returns them, oldest first. */
  List<Flight> drainQueue() {
    lock.lock();
    try {
      List<Flight> drained = new ArrayList<>(queue);
      queue.clear();
      drained.forEach(f -> f.state = Flight.State.DONE);
      return drained;
    } finally {
      lock.unlock();
    }
  }

  /** Returns a copy of {@code f}'s callers. */
  List<Caller> callersOf(Flight f) {
    lock.lock();
    try {
      return new ArrayList<>(f.callers);
    } finally {
      lock.unlock();
    }
  }

  /** Returns whether any fetch was ever offered to this store. */
  boolean touched() {
    return touched;
  }

  StoreStats stats() {
    lock.lock();
    try {
      return new StoreStats(limit.current(), inflight, queue.size());
    } finally {
      lock.unlock();
    }
  }
}
