package io.ankusa.claimcheck.internal.telemetry;

import io.micrometer.core.instrument.MeterRegistry;

/** Picks the telemetry sink for a configuration; thread-safe (stateless). */
public final class Telemetries {

  private Telemetries() {}

  /**
   * Returns Micrometer telemetry on {@code meterRegistry} — a {@code MeterRegistry} passed in a
   * config map, or null for Micrometer's global registry.
   *
   * @throws IllegalArgumentException if {@code meterRegistry} is neither
   */
  public static ClaimCheckTelemetry of(Object meterRegistry) {
    if (meterRegistry == null) {
      return MicrometerTelemetry.global();
    }
    if (meterRegistry instanceof MeterRegistry r) {
      return MicrometerTelemetry.of(r);
    }
    throw new IllegalArgumentException(
        "not a Micrometer MeterRegistry: " + meterRegistry.getClass().getName());
  }
}
