package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.cache.ClaimCache;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome;
import io.ankusa.claimcheck.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The {@link ClaimReader}: cache, coalescing map, one {@link StoreLane} per store, a request gate
 * and timers; thread-safe.
 *
 * <p>Invariants: {@code flights} maps a key to its one flight not yet DONE — running, queued or
 * backing off between retries, so a fetch of that key joins it (a flight leaves the map after its
 * answer is cached, so a fetch that finds neither starts a new one); no lock is held while a fetch
 * function, a caller's future or telemetry runs; every caller is settled exactly once and counted
 * exactly once — the starter by its flight when the flight ends (STORE if it ever asked the store,
 * SHED if it never did), every other caller by whoever settled it (COALESCED for the fetch's
 * answer, SHED for none); every store request's answer is accounted, even when nobody waits for it
 * any more; a caller whose deadline passes after a retriable failure gets {@code unavailable:
 * deadline} naming that failure. The cache-hit path is one cache lookup and one completed future.
 */
final class DefaultClaimReader implements ClaimReader {

  static final long BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ClaimCache<FetchKey> cache;
  private final ConcurrentHashMap<FetchKey, Flight> flights = new ConcurrentHashMap<>();
  private final StoreLane[] lanes;
  private final RequestGate gate;
  private final Ticker ticker;
  private final ReaderScheduler scheduler;
  final ClaimCheckTelemetry telemetry;
  private final FlightRunner runner;
  private volatile boolean closed;
  private volatile ReaderScheduler.Cancellable tickTimer;

  DefaultClaimReader(ReaderSettings s) {
    this.cache = ClaimCache.bytesBounded(s.cacheMaxBytes());
    this.lanes = new StoreLane[s.numStores()];
    for (int i = 0; i < lanes.length; i++) {
      lanes[i] = new StoreLane(i, Limit.aimd(s.maxInflight(), BACKOFF_NANOS), s.queueMax());
    }
    this.gate = new RequestGate(s.maxConcurrentReads());
    this.ticker = s.ticker();
    this.scheduler = s.scheduler();
    this.telemetry = ClaimCheckTelemetry.neverThrowing(s.telemetry());
    this.runner =
        new FlightRunner(cache, flights, ticker, telemetry, scheduler, s.retry(), () -> closed);
    scheduleTick();
  }

  @Override
  public CompletableFuture<byte[]> fetch(
      FetchKey key, int store, Supplier<CompletableFuture<byte[]>> fn, long deadlineNanos) {
    byte[] hit = cache.getIfPresent(key);
    if (hit != null) {
      return CompletableFuture.completedFuture(hit);
    }
    return miss(Objects.requireNonNull(key, "key"), store, fn, deadlineNanos);
  }

  private CompletableFuture<byte[]> miss(
      FetchKey key, int store, Supplier<CompletableFuture<byte[]>> fn, long deadlineNanos) {
    Objects.requireNonNull(fn, "fn");
    if (store < 0 || store >= lanes.length) {
      throw new IllegalArgumentException(
          "store must be in [0, " + lanes.length + "), was " + store);
    }
    if (closed) {
      return refuse(store, ReadException.Reason.CLOSED);
    }
    if (deadlineNanos - ticker.read() <= 0) {
      return refuse(store, ReadException.Reason.DEADLINE);
    }
    Caller caller = new Caller(store, deadlineNanos);
    for (; ; ) {
      Flight f = flights.get(key);
      if (f != null) {
        if (f.lane.join(f, caller)) {
          arm(caller, f);
          return caller.future;
        }
        flights.remove(key, f); // answered but not yet unmapped: help, then look again
        byte[] hit = cache.getIfPresent(key);
        if (hit != null) {
          return CompletableFuture.completedFuture(hit);
        }
        continue;
      }
      Flight mine = new Flight(key, lanes[store], fn, caller);
      if (flights.putIfAbsent(key, mine) == null) {
        start(mine);
        return caller.future;
      }
    }
  }

  private void start(Flight f) {
    byte[] raced = cache.getIfPresent(f.key); // a flight answered between our lookups
    if (raced != null) {
      runner.answerFromCache(f, raced);
      return;
    }
    switch (f.lane.offer(f)) {
      case SHED -> runner.settleAll(f, new ReadException(ReadException.Reason.OVERLOADED));
      case QUEUED -> arm(f.starter, f);
      case RUN -> {
        // The starter's deadline timer is armed only if the attempt did not answer it at once: an
        // attempt that runs inline is bounded by that deadline itself, so a call answered on this
        // thread schedules and cancels no timer.
        runner.runOwn(f);
        if (!f.starter.isSettled()) {
          arm(f.starter, f);
        }
      }
    }
  }

  private CompletableFuture<byte[]> refuse(int store, ReadException.Reason reason) {
    telemetry.read(store, ReadOutcome.SHED);
    return CompletableFuture.failedFuture(new ReadException(reason));
  }

  private void arm(Caller c, Flight f) {
    long delay = c.deadlineNanos - ticker.read();
    c.arm(scheduler.schedule(() -> expire(c, f), Math.max(0, delay)));
  }

  private void expire(Caller c, Flight f) {
    if (c.isSettled()) {
      return;
    }
    if (c.deadlineNanos - ticker.read() > 0) {
      arm(c, f); // the timer ran early on our clock: wait for the rest
      return;
    }
    if (!c.fail(new ReadException(ReadException.Reason.DEADLINE, f.lastError))) {
      return;
    }
    if (c != f.starter) {
      telemetry.read(c.store, ReadOutcome.SHED);
    }
    if (f.lane.abandon(f)) {
      runner.ended(f);
    }
  }

  @Override
  public ClaimCache.Pin pin(FetchKey key, ClaimCache.PinListener listener) {
    return closed ? null : cache.register(Objects.requireNonNull(key, "key"), listener);
  }

  @Override
  public long pinnedBytes() {
    return cache.pinnedBytes();
  }

  @Override
  public void evict(FetchKey key, byte[] bytes) {
    cache.remove(Objects.requireNonNull(key, "key"), bytes);
  }

  @Override
  public boolean cached(FetchKey key) {
    return cache.getIfPresent(key) != null;
  }

  @Override
  public boolean admit() {
    return closed || gate.admit();
  }

  @Override
  public void release() {
    gate.release();
  }

  @Override
  public boolean admitUnowned() {
    return closed || gate.admitUnowned();
  }

  @Override
  public void releaseUnowned() {
    gate.releaseUnowned();
  }

  @Override
  public int admitted() {
    return gate.admitted();
  }

  @Override
  public Map<Integer, StoreStats> stats() {
    Map<Integer, StoreStats> stats = new TreeMap<>();
    for (StoreLane lane : lanes) {
      stats.put(lane.store, lane.stats());
    }
    return stats;
  }

  /** Reclaims dead threads' permits and publishes each used store's state; runs every second. */
  void tick() {
    gate.reclaimDead();
    for (StoreLane lane : lanes) {
      if (lane.touched()) {
        StoreStats s = lane.stats();
        telemetry.storeState(lane.store, s.limit(), s.inflight(), s.queued());
      }
    }
  }

  private void scheduleTick() {
    tickTimer =
        scheduler.schedule(
            () -> {
              if (!closed) {
                tick();
                scheduleTick();
              }
            },
            TICK_NANOS);
    if (closed) {
      tickTimer.cancel();
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    tickTimer.cancel();
    ReadException down = new ReadException(ReadException.Reason.CLOSED);
    for (StoreLane lane : lanes) {
      for (Flight f : lane.drainQueue()) {
        runner.settleAll(f, down);
      }
    }
    List<Flight> running = new ArrayList<>(flights.values());
    for (Flight f : running) {
      runner.failCallers(f, f.lane.callersOf(f), down);
      runner.stopRetrying(f);
    }
    cache.invalidateAll();
  }

  boolean isClosed() {
    return closed;
  }

  int flightCount() {
    return flights.size();
  }
}
