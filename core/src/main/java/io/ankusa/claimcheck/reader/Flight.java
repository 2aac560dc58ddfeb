package io.ankusa.claimcheck.reader;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One fetch of one key, from its first caller to the store's answer; its mutable state is guarded
 * by its {@link #lane}'s lock.
 *
 * <p>Invariants: the state only moves forward, NEW → (QUEUED →) RUNNING → DONE or NEW/QUEUED →
 * DONE without a store request; callers join only before DONE, so once DONE {@link #callers} is
 * final and may be read without the lock; {@link #pending} counts the callers not yet settled by
 * their deadline, and a QUEUED flight whose pending count reaches 0 is dropped; {@link #fn} is
 * called at most once, only by whoever moved the flight to RUNNING.
 */
final class Flight {

  enum State {
    NEW,
    QUEUED,
    RUNNING,
    DONE
  }

  final FetchKey key;
  final StoreLane lane;
  final Caller starter;
  final Supplier<CompletableFuture<byte[]>> fn;
  final List<Caller> callers = new ArrayList<>(2);
  int pending;
  State state = State.NEW;

  Flight(FetchKey key, StoreLane lane, Supplier<CompletableFuture<byte[]>> fn, Caller starter) {
    this.key = key;
    this.lane = lane;
    this.fn = fn;
    this.starter = starter;
    callers.add(starter);
    pending = 1;
  }
}
