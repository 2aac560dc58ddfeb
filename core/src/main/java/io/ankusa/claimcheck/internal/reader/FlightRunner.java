package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.cache.ClaimCache;
import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BooleanSupplier;

/**
 * Calls fetch functions, retries throttled and unavailable answers, and delivers final answers: to
 * the cache, the store's limit, and every caller of the flight; thread-safe (it holds no state of
 * its own beyond what it is given).
 *
 * <p>Answers, by what the attempt completed with: bytes are cached and delivered; a {@link
 * StoreException} that is final (NOT_FOUND, FORBIDDEN, ALREADY_EXISTS) is delivered; a THROTTLED or
 * UNAVAILABLE one is retried after a {@link Backoff} — as a new request that re-enters the lane, so
 * it runs, queues or is shed like any — while a caller still waits and the next attempt can start
 * before the latest caller's deadline; once that no longer holds the flight ends, and its callers
 * still waiting get {@code unavailable: deadline} (naming the last error) at their deadline, never
 * later. Anything else (the function's own verdict such as a {@code ClaimCheckFailure}, an {@code
 * Error}, a bug) is delivered unchanged, never retried, never cached, and says nothing about the
 * store's load (IGNORE).
 *
 * <p>Invariants: a successful answer is cached before its flight leaves the coalescing map, so a
 * fetch arriving in between joins or hits; every store request's answer feeds its lane's limit
 * exactly once, even when no caller waits; a flight leaves the map and counts its starter exactly
 * once, when it becomes DONE (STORE if it ever asked the store, else SHED); flights that a finished
 * request lets start run in a loop on the finishing thread instead of recursing, so fetch functions
 * that answer synchronously cannot overflow the stack however long the queue; a retry starts on the
 * scheduler's thread; no lock is held while anything here calls out.
 */
final class FlightRunner {

  private final ClaimCache<FetchKey> cache;
  private final ConcurrentMap<FetchKey, Flight> flights;
  private final Ticker ticker;
  private final ClaimCheckTelemetry telemetry;
  private final ReaderScheduler scheduler;
  private final Backoff backoff;
  private final BooleanSupplier closed;

  FlightRunner(
      ClaimCache<FetchKey> cache,
      ConcurrentMap<FetchKey, Flight> flights,
      Ticker ticker,
      ClaimCheckTelemetry telemetry,
      ReaderScheduler scheduler,
      Backoff backoff,
      BooleanSupplier closed) {
    this.cache = cache;
    this.flights = flights;
    this.ticker = ticker;
    this.telemetry = telemetry;
    this.scheduler = scheduler;
    this.backoff = backoff;
    this.closed = closed;
  }

  /** Runs {@code first} (already RUNNING, its slot taken) and whatever its answer lets start. */
  void run(Flight first) {
    ArrayDeque<Flight> work = new ArrayDeque<>();
    work.add(first);
    drain(work, null);
  }

  /**
   * Like {@link #run}, on the thread of {@code first}'s starter: its own attempt may run inline on
   * that thread ({@link InlineCalls}, if the thread allows it); the flights its answer lets start
   * are other callers' and never do.
   */
  void runOwn(Flight first) {
    ArrayDeque<Flight> work = new ArrayDeque<>();
    work.add(first);
    drain(work, first);
  }

  private void drain(ArrayDeque<Flight> work, Flight own) {
    Flight f;
    while ((f = work.poll()) != null) {
      CompletableFuture<byte[]> cf;
      try (InlineCalls.Scope s = f == own ? null : InlineCalls.suspend()) {
        cf = f.fn.get();
      } catch (Throwable t) {
        cf = CompletableFuture.failedFuture(t);
      }
      if (cf == null) {
        cf =
            CompletableFuture.failedFuture(
                new IllegalStateException("the fetch function returned null"));
      }
      if (cf.isDone()) {
        byte[] v = null;
        Throwable e = null;
        try {
          v = cf.join();
        } catch (Throwable t) {
          e = t;
        }
        finished(f, v, e, work);
      } else {
        Flight g = f;
        cf.whenComplete(
            (v, e) -> {
              ArrayDeque<Flight> next = new ArrayDeque<>();
              finished(g, v, e, next);
              drain(next, null);
            });
      }
    }
  }

  private void finished(Flight f, byte[] bytes, Throwable error, ArrayDeque<Flight> work) {
    Throwable failure = error == null ? null : StoreException.unwrap(error);
    if (failure == null && bytes == null) {
      failure = new IllegalStateException("the fetch function answered null bytes");
    }
    long now = ticker.read();
    long retryDelay = -1;
    if (failure == null) {
      if (f.key.cached()) {
        cache.put(f.key, bytes);
      }
    } else if (failure instanceof StoreException se && isRetriable(se)) {
      f.lastError = se;
      if (!closed.getAsBoolean()) {
        retryDelay =
            backoff.delayNanos(
                f.attempts + 1, se.retryAfter().orElse(null), f.latestDeadline - now);
      }
    }
    StoreLane.Dispatch d = f.lane.finish(f, outcomeOf(failure), now, retryDelay);
    if (d.retrying()) {
      f.retryTimer = scheduler.schedule(() -> resume(f), retryDelay);
    } else {
      ended(f);
    }
    if (d.newLimit() >= 0) {
      telemetry.limitChanged(f.lane.store, d.newLimit());
    }
    d.dropped().forEach(this::ended);
    if (!d.retrying()) {
      // Completing the callers' futures runs what they chained to them: never inline here.
      try (InlineCalls.Scope s = InlineCalls.suspend()) {
        deliver(f, bytes, failure);
      }
    }
    work.addAll(d.toRun());
  }

  /** Answers every caller of DONE flight {@code f}, unless its failure was retriable. */
  private void deliver(Flight f, byte[] bytes, Throwable failure) {
    if (failure instanceof StoreException se && isRetriable(se)) {
      return; // retries ran out of time: the callers still waiting fail at their deadline
    }
    for (Caller c : f.callers) {
      boolean answered = failure == null ? c.succeed(bytes) : c.fail(failure);
      if (answered && c != f.starter) {
        telemetry.read(c.store, ReadOutcome.COALESCED);
      }
    }
  }

  /** The backoff of {@code f} is over: start its next attempt, unless nobody needs it. */
  private void resume(Flight f) {
    StoreLane.Admission a = closed.getAsBoolean() ? f.lane.endBackoff(f) : f.lane.resume(f);
    switch (a) {
      case RUN -> run(f);
      case QUEUED, GONE -> {}
      case DROPPED -> ended(f);
      case SHED -> {
        ended(f);
        failCallers(f, f.callers, new ReadException(ReadException.Reason.OVERLOADED, f.lastError));
      }
    }
  }

  /** Ends BACKOFF flight {@code f} at once (the reader closed); does nothing otherwise. */
  void stopRetrying(Flight f) {
    if (f.lane.endBackoff(f) == StoreLane.Admission.DROPPED) {
      ended(f);
    }
  }

  /**
   * Accounts flight {@code f}, which just became DONE: unmaps it and counts its starter, STORE if
   * it ever asked the store, else SHED.
   */
  void ended(Flight f) {
    flights.remove(f.key, f);
    telemetry.read(f.lane.store, f.attempts > 0 ? ReadOutcome.STORE : ReadOutcome.SHED);
    ReaderScheduler.Cancellable t = f.retryTimer;
    if (t != null) {
      t.cancel();
    }
  }

  static boolean isRetriable(StoreException e) {
    return e.kind() == StoreException.Kind.THROTTLED || e.kind() == StoreException.Kind.UNAVAILABLE;
  }

  static Limit.Outcome outcomeOf(Throwable failure) {
    if (failure == null) {
      return Limit.Outcome.SUCCESS;
    }
    if (!(failure instanceof StoreException se)) {
      return Limit.Outcome.IGNORE;
    }
    return switch (se.kind()) {
      case NOT_FOUND -> Limit.Outcome.SUCCESS;
      case THROTTLED, UNAVAILABLE -> Limit.Outcome.OVERLOAD;
      case FORBIDDEN, ALREADY_EXISTS -> Limit.Outcome.IGNORE;
    };
  }

  /** Answers NEW flight {@code f} with bytes another flight cached, without a store request. */
  void answerFromCache(Flight f, byte[] bytes) {
    f.lane.retire(f);
    flights.remove(f.key, f);
    for (Caller c : f.callers) {
      if (c.succeed(bytes)) {
        telemetry.read(c.store, ReadOutcome.COALESCED);
      }
    }
  }

  /** Fails every caller of DONE flight {@code f}, which asks its store no more, with {@code e}. */
  void settleAll(Flight f, ReadException e) {
    ended(f);
    failCallers(f, f.callers, e);
  }

  /**
   * Fails {@code callers} of {@code f} still waiting with {@code e}; the starter is not counted.
   */
  void failCallers(Flight f, List<Caller> callers, ReadException e) {
    for (Caller c : callers) {
      if (c.fail(e) && c != f.starter) {
        telemetry.read(c.store, ReadOutcome.SHED);
      }
    }
  }
}
