package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.kafka.internal.SerdeMetrics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Metrics;

/**
 * The metrics a {@link ClaimCheckProducer} adds to its inner producer's in {@link
 * ClaimCheckProducer#metrics()}; thread-safe, and counting never throws.
 *
 * <p>Group {@code claimcheck-producer-metrics}, tagged {@code client-id}: the serializer's counts
 * ({@link SerdeMetrics}: {@code claimcheck-claimed-total}, {@code -inline-total}, {@code
 * -failed-total} by reason), and {@code claimcheck-uploads-inflight}, {@code
 * claimcheck-bytes-pending}, {@code claimcheck-records-pending}, {@code
 * claimcheck-checkin-latency-avg}/{@code -max} (ms, since start), {@code claimcheck-packs-total}
 * (check-in requests: PUTs when no pack goes multipart). Micrometer users bind them with {@code
 * KafkaClientMetrics}, as any Kafka client's; each pack written also reaches core's own Micrometer
 * timer {@code claimcheck.checkin}.
 */
final class ProducerMetrics implements AutoCloseable {

  static final String GROUP = "claimcheck-producer-metrics";

  private final Metrics metrics = new Metrics();
  private final Map<String, String> tags;
  private final SerdeMetrics counts = new SerdeMetrics("checked in");
  private final LongAdder packs = new LongAdder();
  private final LongAdder packNanos = new LongAdder();
  private final AtomicLong maxNanos = new AtomicLong();

  ProducerMetrics(String clientId) {
    this.tags = Map.of("client-id", clientId);
    // Registered here, not through PluginMetrics: that interface exists only from kafka-clients
    // 4.1, and the producer must load on older clients.
    counts.forEach(
        (name, doc, extra, counter) -> {
          Map<String, String> all = new LinkedHashMap<>(tags);
          all.putAll(extra);
          metrics.addMetric(
              metrics.metricName(name, GROUP, doc, all),
              (Measurable) (config, now) -> counter.getAsLong());
        });
    gauge("claimcheck-packs-total", "Check-in requests made (one pack each).", packs::sum);
    gauge(
        "claimcheck-checkin-latency-avg",
        "Mean check-in latency, ms.",
        () -> packs.sum() == 0 ? 0 : packNanos.sum() / packs.sum() / 1_000_000);
    gauge(
        "claimcheck-checkin-latency-max",
        "Longest check-in latency, ms.",
        () -> maxNanos.get() / 1_000_000);
  }

  /** Registers the gauges read from the producer's parts. */
  void bind(LongSupplier inflight, LongSupplier bytesPending, LongSupplier recordsPending) {
    gauge("claimcheck-uploads-inflight", "Check-ins (uploads) under way now.", inflight);
    gauge(
        "claimcheck-bytes-pending",
        "Value bytes accepted and not yet handed to the producer.",
        bytesPending);
    gauge(
        "claimcheck-records-pending",
        "Records accepted and not yet handed to the producer.",
        recordsPending);
  }

  private void gauge(String name, String doc, LongSupplier value) {
    metrics.addMetric(
        metrics.metricName(name, GROUP, doc, tags),
        (Measurable) (config, now) -> value.getAsLong());
  }

  SerdeMetrics counts() {
    return counts;
  }

  /** Counts one check-in request of {@code claims} values that took {@code nanos}. */
  void checkedIn(int claims, long nanos, boolean ok) {
    packs.increment();
    packNanos.add(nanos);
    maxNanos.accumulateAndGet(nanos, Math::max);
    if (ok) {
      for (int i = 0; i < claims; i++) {
        counts.claimed();
      }
    }
  }

  long packsWritten() {
    return packs.sum();
  }

  Map<MetricName, ? extends Metric> all() {
    return metrics.metrics();
  }

  @Override
  public void close() {
    metrics.close();
  }
}
