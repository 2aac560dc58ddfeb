package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ClaimCheckFailure;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * The counts a serializer or deserializer keeps, shown as Kafka plugin metrics beside the client's
 * own once bound; thread-safe.
 *
 * <p>Metrics (each a cumulative total): {@code claimcheck-claimed-total} (values checked in, or
 * refs redeemed), {@code claimcheck-inline-total} (values passed through untouched) and {@code
 * claimcheck-failed-total} with a {@code reason} tag per {@link ClaimCheckFailure.Reason}.
 * Counting never throws and works whether or not the client binds plugin metrics.
 */
final class SerdeMetrics {

  private final String what;
  private final LongAdder claimed = new LongAdder();
  private final LongAdder inline = new LongAdder();
  private final Map<ClaimCheckFailure.Reason, LongAdder> failed =
      new EnumMap<>(ClaimCheckFailure.Reason.class);

  /** {@code what} describes a claimed record in metric docs ("checked in" or "redeemed"). */
  SerdeMetrics(String what) {
    this.what = what;
    for (ClaimCheckFailure.Reason r : ClaimCheckFailure.Reason.values()) {
      failed.put(r, new LongAdder());
    }
  }

  void claimed() {
    claimed.increment();
  }

  void inline() {
    inline.increment();
  }

  void failed(ClaimCheckFailure.Reason reason) {
    failed.get(reason).increment();
  }

  long claimedCount() {
    return claimed.sum();
  }

  long inlineCount() {
    return inline.sum();
  }

  long failedCount(ClaimCheckFailure.Reason reason) {
    return failed.get(reason).sum();
  }

  /** Registers the counts with the client's plugin metrics. */
  void bind(PluginMetrics metrics) {
    add(
        metrics,
        "claimcheck-claimed-total",
        "Records whose bytes were " + what + ".",
        new LinkedHashMap<>(),
        claimed);
    add(
        metrics,
        "claimcheck-inline-total",
        "Records passed through inline, untouched.",
        new LinkedHashMap<>(),
        inline);
    for (Map.Entry<ClaimCheckFailure.Reason, LongAdder> e : failed.entrySet()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("reason", e.getKey().name().toLowerCase(Locale.ROOT));
      add(
          metrics,
          "claimcheck-failed-total",
          "Records that failed, by reason.",
          tags,
          e.getValue());
    }
  }

  private static void add(
      PluginMetrics metrics,
      String name,
      String doc,
      LinkedHashMap<String, String> tags,
      LongAdder counter) {
    metrics.addMetric(
        metrics.metricName(name, doc, tags), (Measurable) (config, now) -> counter.sum());
  }
}
