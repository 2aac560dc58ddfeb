package io.ankusa.claimcheck.examples;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Reads the library's own Micrometer meters from the registry the demo passes under {@code
 * claimcheck.meter.registry}: check-ins per store ({@code claimcheck.checkin}, tag {@code store})
 * and breaker transitions ({@code claimcheck.store.breaker}); thread-safe (the registry is).
 */
final class StoreMeters {

  private final MeterRegistry registry = new SimpleMeterRegistry();

  /** The registry to pass in the clients' config maps. */
  MeterRegistry registry() {
    return registry;
  }

  /** Check-ins store {@code store} took so far ({@code claimcheck.checkin}, outcome ok). */
  long checkIns(int store) {
    return timerCount("ok", Integer.toString(store));
  }

  /** Check-ins no store took (outcome failed). */
  long failedCheckIns() {
    return timerCount("failed", "-1");
  }

  /** How often the breaker of {@code store} went {@code transition} (opened or closed). */
  long breaker(int store, String transition) {
    Counter c =
        registry
            .find("claimcheck.store.breaker")
            .tag("store", Integer.toString(store))
            .tag("transition", transition)
            .counter();
    return c == null ? 0 : (long) c.count();
  }

  private long timerCount(String outcome, String store) {
    Timer t =
        registry.find("claimcheck.checkin").tag("outcome", outcome).tag("store", store).timer();
    return t == null ? 0 : t.count();
  }

  /** Check-ins per store ({@code stores} of them) right now. */
  long[] snapshot(int stores) {
    long[] counts = new long[stores];
    for (int i = 0; i < stores; i++) {
      counts[i] = checkIns(i);
    }
    return counts;
  }

  /**
   * Names the stores that took check-ins since {@code before} ("A", "B", "A+B"), or "-" for none.
   */
  String tookSince(long[] before) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < before.length; i++) {
      if (checkIns(i) > before[i]) {
        s.append(s.length() == 0 ? "" : "+").append(FailoverDemo.storeName(i));
      }
    }
    return s.length() == 0 ? "-" : s.toString();
  }
}
