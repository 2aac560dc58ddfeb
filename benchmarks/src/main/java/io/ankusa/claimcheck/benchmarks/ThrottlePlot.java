package io.ankusa.claimcheck.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Draws {@link ThrottlePlotHarness}'s samples: the reader's limit, in-flight and queued store
 * requests over time, and goodput against store GETs per second; stateless, so thread-safe.
 */
final class ThrottlePlot {

  private static final int WINDOW = 5;

  private ThrottlePlot() {}

  static void write(
      Path png,
      List<ThrottlePlotHarness.Sample> samples,
      List<Plots.Band> bands,
      int clients,
      int cap,
      int latencyMs,
      String load)
      throws IOException {
    List<double[]> limit = new ArrayList<>();
    List<double[]> inflight = new ArrayList<>();
    List<double[]> queued = new ArrayList<>();
    List<double[]> ok = new ArrayList<>();
    List<double[]> gets = new ArrayList<>();
    List<double[]> failed = new ArrayList<>();
    for (int i = 0; i < samples.size(); i++) {
      ThrottlePlotHarness.Sample s = samples.get(i);
      limit.add(new double[] {s.t(), s.stats().limit()});
      inflight.add(new double[] {s.t(), s.stats().inflight()});
      queued.add(new double[] {s.t(), s.stats().queued()});
      // Rates over the trailing WINDOW samples, divided by the time they really span: the
      // sampling thread shares 2 loaded cores and does not wake every 100 ms on the dot.
      int from = Math.max(0, i - WINDOW);
      double span = s.t() - (from == i ? 0 : samples.get(from).t());
      long o = 0;
      long g = 0;
      long f = 0;
      for (int j = from + (from == i ? 0 : 1); j <= i; j++) {
        o += samples.get(j).ok();
        g += samples.get(j).gets();
        f += samples.get(j).failed();
      }
      ok.add(new double[] {s.t(), o / span});
      gets.add(new double[] {s.t(), g / span});
      failed.add(new double[] {s.t(), f / span});
    }
    List<double[]> capLine = new ArrayList<>();
    Plots.Band throttled = bands.get(0);
    capLine.add(new double[] {throttled.from(), cap});
    capLine.add(new double[] {throttled.to(), cap});
    Map<String, List<double[]>> reader = new LinkedHashMap<>();
    reader.put("AIMD limit", limit);
    reader.put("store requests in flight", inflight);
    reader.put("fetches queued", queued);
    reader.put("the store's capacity (throttle cap)", capLine);
    Map<String, List<double[]>> rates = new LinkedHashMap<>();
    rates.put("goodput: redeems completed /s", ok);
    rates.put("store GETs /s (incl. throttled)", gets);
    rates.put("redeems failed /s", failed);
    List<double[]> ceiling = new ArrayList<>();
    ceiling.add(new double[] {throttled.from(), cap * 1000.0 / latencyMs});
    ceiling.add(new double[] {throttled.to(), cap * 1000.0 / latencyMs});
    rates.put("most the store serves while throttling: cap / GET latency", ceiling);
    Plots.write(
        png,
        "AIMD read limit and goodput while S3 throttles",
        clients
            + " threads redeeming 16 KiB claims (cache off) from S3Proxy behind WireMock, "
            + latencyMs
            + " ms per GET; throttle = 503 above "
            + cap
            + " concurrent GETs; load average at end: "
            + load,
        "time (s)",
        false,
        List.of(
            new Plots.Panel("reader (store 0), sampled every 100 ms", reader, false),
            new Plots.Panel("per second (trailing 0.5 s)", rates, false)),
        bands,
        1000,
        800);
  }
}
