package io.ankusa.claimcheck.reader;

import io.ankusa.claimcheck.Ticker;
import io.ankusa.claimcheck.cache.ClaimCache;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.telemetry.ClaimCheckTelemetry.ReadOutcome;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;

/**
 * Calls fetch functions and delivers their answers: to the cache, the store's limit, and every
 * caller of the flight; thread-safe (it holds no state of its own beyond what it is given).
 *
 * <p>Invariants: a successful answer is cached before its flight leaves the coalescing map, so a
 * fetch arriving in between joins or hits; a flight's answer is accounted to its lane exactly once
 * even when no caller waits; flights that a finished request lets start run in a loop on the
 * finishing thread instead of recursing, so fetch functions that answer synchronously cannot
 * overflow the stack however long the queue; no lock is held while anything here calls out.
 */
final class FlightRunner {

  private final ClaimCache<FetchKey> cache;
  private final ConcurrentMap<FetchKey, Flight> flights;
  private final Ticker ticker;
  private final ClaimCheckTelemetry telemetry;

  FlightRunner(
      ClaimCache<FetchKey> cache,
      ConcurrentMap<FetchKey, Flight> flights,
      Ticker ticker,
      ClaimCheckTelemetry telemetry) {
    this.cache = cache;
    this.flights = flights;
    this.ticker = ticker;
    this.telemetry = telemetry;
  }

  /** Runs {@code first} (already RUNNING, its slot taken) and whatever its answer lets start. */
  void run(Flight first) {
    ArrayDeque<Flight> work = new ArrayDeque<>();
    work.add(first);
    drain(work);
  }

  private void drain(ArrayDeque<Flight> work) {
    Flight f;
    while ((f = work.poll()) != null) {
      CompletableFuture<byte[]> cf;
      try {
        cf = f.fn.get();
      } catch (Throwable t) {
        cf = CompletableFuture.failedFuture(t);
      }
      if (cf == null) {
        cf = CompletableFuture.failedFuture(
            new StoreException(StoreException.Kind.UNAVAILABLE, "fetch function returned null"));
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
              drain(next);
            });
      }
    }
  }

  private void finished(Flight f, byte[] bytes, Throwable error, ArrayDeque<Flight> work) {
    StoreException failure = null;
    if (error != null) {
      failure = StoreException.of(error);
    } else if (bytes == null) {
      failure = new StoreException(StoreException.Kind.UNAVAILABLE, "fetch answered null bytes");
    } else {
      cache.put(f.key, bytes);
    }
    StoreLane.Dispatch d = f.lane.finish(f, outcomeOf(failure), ticker.read());
    flights.remove(f.key, f);
    telemetry.read(f.lane.store, ReadOutcome.STORE);
    if (d.newLimit() >= 0) {
      telemetry.limitChanged(f.lane.store, d.newLimit());
    }
    for (Flight dropped : d.dropped()) {
      flights.remove(dropped.key, dropped);
      telemetry.read(dropped.lane.store, ReadOutcome.SHED);
    }
    for (Caller c : f.callers) {
      boolean answered = failure == null ? c.succeed(bytes) : c.fail(failure);
      if (answered && c != f.starter) {
        telemetry.read(c.store, ReadOutcome.COALESCED);
      }
    }
    work.addAll(d.toRun());
  }

  static Limit.Outcome outcomeOf(StoreException failure) {
    if (failure == null) {
      return Limit.Outcome.SUCCESS;
    }
    return switch (failure.kind()) {
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

  /** Fails every caller of DONE flight {@code f}, which never asked its store, with {@code e}. */
  void settleAll(Flight f, ReadException e) {
    flights.remove(f.key, f);
    telemetry.read(f.lane.store, ReadOutcome.SHED);
    failCallers(f, f.callers, e);
  }

  /** Fails {@code callers} of {@code f} still waiting with {@code e}; the starter is not counted. */
  void failCallers(Flight f, List<Caller> callers, ReadException e) {
    for (Caller c : callers) {
      if (c.fail(e) && c != f.starter) {
        telemetry.read(c.store, ReadOutcome.SHED);
      }
    }
  }
}
