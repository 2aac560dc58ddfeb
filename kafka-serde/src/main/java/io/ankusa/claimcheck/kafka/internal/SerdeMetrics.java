package io.ankusa.claimcheck.kafka.internal;

import io.ankusa.claimcheck.ClaimCheckFailure;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The counts a serializer or deserializer keeps, shown as Kafka plugin metrics beside the client's
 * own once bound (by the {@code Monitored} serializer and deserializer, or a {@code
 * ClaimCheckProducer}); thread-safe.
 *
 * <p>Metrics (each a cumulative total): {@code claimcheck-claimed-total} (values checked in, or
 * refs redeemed), {@code claimcheck-inline-total} (values passed through untouched) and {@code
 * claimcheck-failed-total} with a {@code reason} tag per {@link ClaimCheckFailure.Reason}. Counting
 * never throws and works whether or not the client binds plugin metrics; it costs the thread that
 * counts most a plain store ({@link Tally}), since an inline record must cost nothing.
 */
public final class SerdeMetrics {

  private final String what;
  private final Tally claimed = new Tally();
  private final Tally inline = new Tally();
  private final Map<ClaimCheckFailure.Reason, Tally> failed =
      new EnumMap<>(ClaimCheckFailure.Reason.class);

  /** {@code what} describes a claimed record in metric docs ("checked in" or "redeemed"). */
  public SerdeMetrics(String what) {
    this.what = what;
    for (ClaimCheckFailure.Reason r : ClaimCheckFailure.Reason.values()) {
      failed.put(r, new Tally());
    }
  }

  public void claimed() {
    claimed.increment();
  }

  public void inline() {
    inline.increment();
  }

  public void failed(ClaimCheckFailure.Reason reason) {
    failed.get(reason).increment();
  }

  public long claimedCount() {
    return claimed.sum();
  }

  public long inlineCount() {
    return inline.sum();
  }

  public long failedCount(ClaimCheckFailure.Reason reason) {
    return failed.get(reason).sum();
  }

  /** Calls {@code each} with every count's name, doc, tags and counter. */
  public void forEach(Each each) {
    each.accept(
        "claimcheck-claimed-total",
        "Records whose bytes were " + what + ".",
        new LinkedHashMap<>(),
        claimed::sum);
    each.accept(
        "claimcheck-inline-total",
        "Records passed through inline, untouched.",
        new LinkedHashMap<>(),
        inline::sum);
    for (Map.Entry<ClaimCheckFailure.Reason, Tally> e : failed.entrySet()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("reason", e.getKey().name().toLowerCase(Locale.ROOT));
      each.accept(
          "claimcheck-failed-total", "Records that failed, by reason.", tags, e.getValue()::sum);
    }
  }

  /** One count, as {@link #forEach} hands it out. */
  @FunctionalInterface
  public interface Each {
    void accept(String name, String doc, LinkedHashMap<String, String> tags, LongSupplier count);
  }
}
