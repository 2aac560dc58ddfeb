package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One fetch of one key, from its first caller to its final answer, through every retry; its mutable
 * state is guarded by its {@link #lane}'s lock unless a field says otherwise.
 *
 * <p>Invariants: the state moves NEW → (QUEUED →) RUNNING → (BACKOFF → (QUEUED →) RUNNING)* → DONE,
 * or to DONE from NEW, QUEUED or BACKOFF without a further store request, and never leaves DONE;
 * callers join only before DONE, so once DONE {@link #callers} is final and may be read without the
 * lock; {@link #pending} counts the callers not yet settled by their deadline, and a QUEUED or
 * BACKOFF flight whose pending count reaches 0 is dropped; {@link #fn} is called once per attempt,
 * only by whoever moved the flight to RUNNING, so at most one attempt of a flight runs at a time;
 * {@link #attempts} counts the store requests that finished, so a flight that ends with {@code
 * attempts > 0} asked its store.
 */
final class Flight {

  enum State {
    NEW,
    QUEUED,
    RUNNING,
    /** An attempt failed retriably; the next one waits for its backoff timer. */
    BACKOFF,
    DONE
  }

  final FetchKey key;
  final StoreLane lane;
  final Caller starter;
  final Supplier<CompletableFuture<byte[]>> fn;
  final List<Caller> callers = new ArrayList<>(2);
  int pending;
  int attempts;
  State state = State.NEW;

  /** The latest deadline of any caller; written under the lock, readable without it. */
  volatile long latestDeadline;

  /** The last retriable store failure, for the message callers get at their deadline. */
  volatile Throwable lastError;

  /** The pending backoff timer, if any. */
  volatile ReaderScheduler.Cancellable retryTimer;

  Flight(FetchKey key, StoreLane lane, Supplier<CompletableFuture<byte[]>> fn, Caller starter) {
    this.key = key;
    this.lane = lane;
    this.fn = fn;
    this.starter = starter;
    callers.add(starter);
    pending = 1;
    latestDeadline = starter.deadlineNanos;
  }
}
