package io.ankusa.claimcheck.gateway.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's Prometheus registry: the library's telemetry (the reader's limit, inflight and
 * queued per store, breakers, check-ins) and the gateway's own requests by route and status and
 * bytes served; thread-safe. The only gateway class naming Micrometer.
 */
public final class GatewayMetrics {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Counter> requests = new ConcurrentHashMap<>();
  private final Map<String, Counter> served = new ConcurrentHashMap<>();

  /** The registry, for {@code ClaimCheck.open(config, registry, ticker)}. */
  public Object registry() {
    return registry;
  }

  /** Counts one answered request of {@code route} with {@code status}. */
  public void request(String route, int status) {
    meter(route, status).increment();
  }

  /**
   * Counts into {@code route} and {@code status}'s meter, looked up now: for an answer that must
   * not even build the meter's key (the shed path).
   */
  public Runnable counter(String route, int status) {
    return meter(route, status)::increment;
  }

  private Counter meter(String route, int status) {
    // Looked up once per route and status: a meter's builder and registration on every answer
    // cost the shed path (answered first and fast) more than its answer.
    return requests.computeIfAbsent(
        route + ' ' + status,
        k ->
            Counter.builder("claimcheck.gateway.requests")
                .description("HTTP requests answered, by route and status")
                .tag("route", route)
                .tag("status", Integer.toString(status))
                .register(registry));
  }

  /** Counts {@code bytes} of claim bodies sent for {@code route}. */
  public void served(String route, long bytes) {
    served
        .computeIfAbsent(
            route,
            k ->
                Counter.builder("claimcheck.gateway.served.bytes")
                    .description("claim bytes sent in response bodies")
                    .baseUnit("bytes")
                    .tag("route", route)
                    .register(registry))
        .increment(bytes);
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  /** Closes the registry. */
  public void close() {
    registry.close();
  }
}
