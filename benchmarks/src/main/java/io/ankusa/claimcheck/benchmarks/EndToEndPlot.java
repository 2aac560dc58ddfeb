package io.ankusa.claimcheck.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Draws {@link EndToEndHarness}'s results as throughput against value size: end to end, consume
 * only and produce only, one line per client; stateless, so thread-safe.
 */
final class EndToEndPlot {

  private EndToEndPlot() {}

  static void write(Path png, List<EndToEndHarness.Result> results, String setup)
      throws IOException {
    String inline = "inline (max.message.bytes raised)";
    String ours = "claim check";
    String prefetch = "claim check + PrefetchingConsumer";
    Map<String, List<double[]>> e2e = new LinkedHashMap<>();
    e2e.put(inline, points(results, EndToEndHarness.Result::inline));
    e2e.put(ours, points(results, EndToEndHarness.Result::ours));
    e2e.put(prefetch, points(results, EndToEndHarness.Result::prefetch));
    Map<String, List<double[]>> consume = new LinkedHashMap<>();
    consume.put(inline, points(results, r -> r.inlineConsume().mibPerSec(r.size())));
    consume.put(ours, points(results, r -> r.oursConsume().mibPerSec(r.size())));
    consume.put(prefetch, points(results, r -> r.prefetchConsume().mibPerSec(r.size())));
    Map<String, List<double[]>> produce = new LinkedHashMap<>();
    produce.put(inline, points(results, r -> r.inlineProduce().mibPerSec(r.size())));
    produce.put(ours, points(results, r -> r.oursProduce().mibPerSec(r.size())));
    StringBuilder counts = new StringBuilder();
    for (EndToEndHarness.Result r : results) {
      counts
          .append(counts.length() == 0 ? "" : ", ")
          .append(r.size().label())
          .append(" x ")
          .append(r.size().count());
    }
    Plots.write(
        png,
        "Produce + consume through one KRaft broker and S3Proxy (one JVM, 2 shared cores)",
        counts + "; " + setup,
        "value size (KiB)",
        true,
        List.of(
            new Plots.Panel("end to end MiB/s", e2e, true),
            new Plots.Panel("consume MiB/s", consume, true),
            new Plots.Panel("produce MiB/s (prefetch: n/a)", produce, true)),
        List.of(),
        900,
        1000);
  }

  private static List<double[]> points(
      List<EndToEndHarness.Result> results, ToDoubleFunction<EndToEndHarness.Result> y) {
    List<double[]> pts = new ArrayList<>();
    for (EndToEndHarness.Result r : results) {
      pts.add(new double[] {r.size().bytes() / 1024.0, y.applyAsDouble(r)});
    }
    return pts;
  }
}
