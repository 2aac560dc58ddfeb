package io.ankusa.claimcheck.internal.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Claim check telemetry recorded as Micrometer meters in one {@link MeterRegistry}; thread-safe.
 *
 * <p>Meters: {@code claimcheck.read} (counter; tags {@code store}, {@code outcome} =
 * store|coalesced|shed), {@code claimcheck.read.limit}, {@code claimcheck.read.inflight} and {@code
 * claimcheck.read.queued} (gauges per {@code store}), {@code claimcheck.store.breaker} (counter;
 * tags {@code store}, {@code transition} = opened|closed) and {@code claimcheck.checkin} (timer;
 * tags {@code outcome} = ok|collision|failed, {@code store}).
 *
 * <p>Invariants: every instance on one registry shares that registry's gauge values (Micrometer
 * keeps the first state object registered for a gauge), so two readers reporting to one registry
 * update the same gauges instead of one of them reporting into the void; a store's gauges are
 * registered once, on its first event, and read values held strongly; instances are equal when
 * their registry is the same object; meters are looked up once per (store, tag) and then reused, so
 * a counted read does not allocate. This is the only class of the library that imports Micrometer.
 */
public final class MicrometerTelemetry implements ClaimCheckTelemetry {

  /**
   * Gauge values per registry, shared by every instance on it; State never refers to a registry.
   */
  private static final Map<MeterRegistry, Map<Integer, State>> STATES = new WeakHashMap<>();

  private static final ReadOutcome[] OUTCOMES = ReadOutcome.values();

  private final MeterRegistry registry;
  private final Map<Integer, Counter[]> readCounters = new ConcurrentHashMap<>();
  private final Map<Integer, State> states;
  private final Map<String, Counter> breakerCounters = new ConcurrentHashMap<>();
  private final Map<String, Timer> checkInTimers = new ConcurrentHashMap<>();

  private MicrometerTelemetry(MeterRegistry registry) {
    this.registry = registry;
    synchronized (STATES) {
      this.states = STATES.computeIfAbsent(registry, r -> new ConcurrentHashMap<>());
    }
  }

  /** Returns telemetry that records into {@code registry}; instances on one registry are equal. */
  public static MicrometerTelemetry of(MeterRegistry registry) {
    return new MicrometerTelemetry(Objects.requireNonNull(registry, "registry"));
  }

  /** Returns the telemetry that records into Micrometer's {@link Metrics#globalRegistry}. */
  public static MicrometerTelemetry global() {
    return of(Metrics.globalRegistry);
  }

  /** Returns the registry this telemetry records into. */
  public MeterRegistry registry() {
    return registry;
  }

  @Override
  public void read(int store, ReadOutcome outcome) {
    Counter[] counters = readCounters.get(store);
    if (counters == null) {
      counters = readCounters.computeIfAbsent(store, this::newReadCounters);
    }
    counters[outcome.ordinal()].increment();
  }

  private Counter[] newReadCounters(int store) {
    Counter[] counters = new Counter[OUTCOMES.length];
    for (ReadOutcome o : OUTCOMES) {
      counters[o.ordinal()] =
          Counter.builder("claimcheck.read")
              .description("Reader callers, by how they were answered")
              .tag("store", Integer.toString(store))
              .tag("outcome", o.name().toLowerCase(Locale.ROOT))
              .register(registry);
    }
    return counters;
  }

  @Override
  public void limitChanged(int store, int newLimit) {
    state(store).limit.set(newLimit);
  }

  @Override
  public void storeState(int store, int limit, int inflight, int queued) {
    State s = state(store);
    s.limit.set(limit);
    s.inflight.set(inflight);
    s.queued.set(queued);
  }

  private State state(int store) {
    State s = states.get(store);
    return s != null ? s : states.computeIfAbsent(store, this::newState);
  }

  private State newState(int store) {
    State s = new State();
    String tag = Integer.toString(store);
    gauge("claimcheck.read.limit", "Store requests the reader may run at once", tag, s.limit);
    gauge("claimcheck.read.inflight", "Store requests the reader is running", tag, s.inflight);
    gauge("claimcheck.read.queued", "Fetches waiting for a free slot", tag, s.queued);
    return s;
  }

  private void gauge(String name, String description, String store, AtomicInteger value) {
    Gauge.builder(name, value, AtomicInteger::get)
        .description(description)
        .tag("store", store)
        .strongReference(true)
        .register(registry);
  }

  @Override
  public void breakerOpened(int store) {
    breaker(store, "opened");
  }

  @Override
  public void breakerClosed(int store) {
    breaker(store, "closed");
  }

  private void breaker(int store, String transition) {
    breakerCounters
        .computeIfAbsent(
            store + "/" + transition,
            k ->
                Counter.builder("claimcheck.store.breaker")
                    .description("Breaker transitions per store")
                    .tag("store", Integer.toString(store))
                    .tag("transition", transition)
                    .register(registry))
        .increment();
  }

  @Override
  public void checkIn(CheckInOutcome outcome, int store, long nanos) {
    String o = outcome.name().toLowerCase(Locale.ROOT);
    checkInTimers
        .computeIfAbsent(
            o + "/" + store,
            k ->
                Timer.builder("claimcheck.checkin")
                    .description("Check-ins, by outcome and the store that took them")
                    .tag("outcome", o)
                    .tag("store", Integer.toString(store))
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MicrometerTelemetry other && other.registry == registry;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(registry);
  }

  @Override
  public String toString() {
    return "MicrometerTelemetry[" + registry.getClass().getSimpleName() + "]";
  }

  /** The gauge values of one store. */
  private static final class State {
    final AtomicInteger limit = new AtomicInteger();
    final AtomicInteger inflight = new AtomicInteger();
    final AtomicInteger queued = new AtomicInteger();
  }
}
