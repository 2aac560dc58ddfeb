package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.kafka.internal.SerdeMetrics;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * Registers a {@link SerdeMetrics}' counts with a client's plugin metrics; stateless and
 * thread-safe.
 *
 * <p>Kept apart from {@link SerdeMetrics} and only reached from the {@code Monitored} classes, so
 * that on kafka-clients older than 4.1 (no {@code PluginMetrics}) nothing that loads with the serde
 * refers to it.
 */
final class PluginMetricsBinding {

  private PluginMetricsBinding() {}

  static void bind(SerdeMetrics counts, PluginMetrics metrics) {
    counts.forEach(
        (name, doc, tags, count) ->
            metrics.addMetric(
                metrics.metricName(name, doc, tags),
                (Measurable) (config, now) -> count.getAsLong()));
  }
}
