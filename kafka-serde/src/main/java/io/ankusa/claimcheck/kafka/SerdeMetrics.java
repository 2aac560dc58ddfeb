package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ClaimCheckFailure;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The counts a serializer or deserializer keeps, shown as Kafka plugin metrics beside the client's
 * own once bound (see {@link PluginMetricsBinding}); thread-safe.
 *
 * <p>Metrics (each a cumulative total): {@code claimcheck-claimed-total} (values checked in, or
 * refs redeemed), {@code claimcheck-inline-total} (values passed through untouched) and {@code
 * claimcheck-failed-total} with a {@code reason} tag per {@link ClaimCheckFailure.Reason}. Counting
 * never throws and works whether or not the client binds plugin metrics; it costs the thread that
 * counts most a plain store ({@link Tally}), since an inline record must cost nothing.
 */
final class SerdeMetrics {

  private final String what;
  private final Tally claimed = new Tally();
  private final Tally inline = new Tally();
  private final Map<ClaimCheckFailure.Reason, Tally> failed =
      new EnumMap<>(ClaimCheckFailure.Reason.class);

  /** {@code what} describes a claimed record in metric docs ("checked in" or "redeemed"). */
  SerdeMetrics(String what) {
    this.what = what;
    for (ClaimCheckFailure.Reason r : ClaimCheckFailure.Reason.values()) {
      failed.put(r, new Tally());
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

  /** Calls {@code each} with every count's name, doc, tags and counter. */
  void forEach(Each each) {
    each.accept(
        "claimcheck-claimed-total",
        "Records whose bytes were " + what + ".",
        new LinkedHashMap<>(),
        claimed);
    each.accept(
        "claimcheck-inline-total",
        "Records passed through inline, untouched.",
        new LinkedHashMap<>(),
        inline);
    for (Map.Entry<ClaimCheckFailure.Reason, Tally> e : failed.entrySet()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("reason", e.getKey().name().toLowerCase(Locale.ROOT));
      each.accept("claimcheck-failed-total", "Records that failed, by reason.", tags, e.getValue());
    }
  }

  /** One count, as {@link #forEach} hands it out. */
  @FunctionalInterface
  interface Each {
    void accept(String name, String doc, LinkedHashMap<String, String> tags, Tally counter);
  }
}
