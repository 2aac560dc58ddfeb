package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.reader.StoreStats;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The AIMD limit and the goodput over time while S3 throttles: {@code clients} threads redeem
 * distinct claims through {@link ClaimCheck#redeem} (cache off, so every redeem is a store GET)
 * from S3Proxy behind the WireMock fault proxy, which holds every GET {@code latencyMs}; one
 * harness thread drives the phases and samples.
 *
 * <p>Phases: free; then the proxy answers 503 SlowDown (Retry-After 1 s) to a GET arriving while
 * {@code cap} are in flight ({@link FaultProxy#throttleAbove}); then free; then 503 SlowDown to
 * every GET for 2 s; then free. Every 100 ms the harness samples the reader's {@link StoreStats}
 * (limit, in flight, queued), the redeems completed and failed in the interval, and the GETs the
 * proxy saw; it prints the samples as CSV and draws them as a PNG. Every redeemed value is checked.
 *
 * <pre>
 *   java -cp benchmarks/target/benchmarks.jar io.ankusa.claimcheck.benchmarks.ThrottlePlotHarness \
 *       [clients=96] [cap=8] [latencyMs=100] [png=docs/bench/aimd-throttle.png]
 * </pre>
 */
public final class ThrottlePlotHarness {

  private static final int CLAIMS = 512;
  private static final int VALUE_BYTES = 16 << 10;
  private static final long SAMPLE_NANOS = 100_000_000L;
  private static final Duration REDEEM_DEADLINE = Duration.ofSeconds(10);

  /**
   * One sample, taken about every 100 ms: {@code t} in seconds since the clients started, the
   * counts since the previous sample.
   */
  record Sample(double t, StoreStats stats, long ok, long failed, long gets) {}

  private final LongAdder ok = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final Map<String, LongAdder> failures = new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicLong next = new AtomicLong();
  private volatile boolean running = true;

  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 96;
    int cap = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int latencyMs = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    Path png = Path.of(args.length > 3 ? args[3] : "docs/bench/aimd-throttle.png");
    new ThrottlePlotHarness().run(clients, cap, latencyMs, png);
    System.exit(0);
  }

  private void run(int clients, int cap, int latencyMs, Path png) throws Exception {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("throttle-" + UUID.randomUUID().toString().substring(0, 8));
    FaultProxy proxy = FaultProxy.inFrontOf(s3);
    Map<String, Object> config = s3.claimCheckConfig("s3://" + bucket, proxy.endpoint());
    config.put("claimcheck.cache.max.bytes", 0L); // every redeem asks the store
    String startLoad = EndToEndHarness.loadAverage();
    List<Sample> samples = new ArrayList<>();
    List<Plots.Band> bands = new ArrayList<>();
    try (ClaimCheck cc = ClaimCheck.open(config)) {
      List<ClaimRef> refs = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      for (int i = 0; i < CLAIMS; i++) {
        byte[] v = new byte[VALUE_BYTES];
        new Random(i).nextBytes(v);
        values.add(v);
        refs.add(cc.checkIn(v));
      }
      proxy.inject(Fault.hang(Duration.ofMillis(latencyMs)), "GET");
      proxy.resetCounts();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        Thread t = new Thread(() -> client(cc, refs, values), "redeemer-" + c);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
      long start = System.nanoTime();
      // t (s) at which each phase starts; the proxy is switched as the clock passes them.
      double[] at = {0, 3, 13, 17, 19, 24};
      String[] phase = {"free", "throttle above " + cap, "free", "503 SlowDown, every GET", "free"};
      int p = 0;
      long lastOk = 0;
      long lastFailed = 0;
      long lastGets = 0;
      for (long tick = 1; ; tick++) {
        long due = start + tick * SAMPLE_NANOS;
        LockSupport.parkNanos(due - System.nanoTime());
        double t = (System.nanoTime() - start) / 1e9;
        while (p + 1 < at.length && t >= at[p + 1]) {
          p++;
          if (p < phase.length) {
            switchTo(proxy, p, cap, latencyMs);
            System.out.printf(Locale.ROOT, "t=%.1f s: %s%n", t, phase[p]);
          }
        }
        if (p >= phase.length) {
          break;
        }
        long o = ok.sum();
        long f = failed.sum();
        long g = proxy.requestCount("GET");
        StoreStats st = ReaderAccess.of(cc).stats().get(0);
        samples.add(new Sample(t, st, o - lastOk, f - lastFailed, g - lastGets));
        lastOk = o;
        lastFailed = f;
        lastGets = g;
      }
      running = false;
      for (Thread t : threads) {
        t.join(REDEEM_DEADLINE.toMillis() + 5_000);
      }
      for (int i = 1; i < phase.length; i += 2) {
        bands.add(new Plots.Band(at[i], at[i + 1], phase[i]));
      }
    } finally {
      proxy.close();
      s3.close();
    }
    print(samples, clients, cap, latencyMs, startLoad);
    ThrottlePlot.write(png, samples, bands, clients, cap, latencyMs, EndToEndHarness.loadAverage());
    System.out.println("plot: " + png.toAbsolutePath());
  }

  private static void switchTo(FaultProxy proxy, int phase, int cap, int latencyMs) {
    switch (phase) {
      case 1 -> proxy.throttleAbove(cap);
      case 3 -> proxy.inject(Fault.slowDown(Duration.ofSeconds(1)), "GET");
      default -> {
        proxy.clear();
        proxy.inject(Fault.hang(Duration.ofMillis(latencyMs)), "GET");
      }
    }
  }

  private void client(ClaimCheck cc, List<ClaimRef> refs, List<byte[]> values) {
    while (running) {
      int i = (int) (next.getAndIncrement() % refs.size());
      long deadline = cc.ticker().read() + REDEEM_DEADLINE.toNanos();
      try {
        byte[] got = cc.redeem(refs.get(i), deadline).join();
        if (!Arrays.equals(got, values.get(i))) {
          throw new AssertionError("WRONG BYTES for claim " + i);
        }
        ok.increment();
      } catch (CompletionException e) {
        failed.increment();
        Throwable c = e.getCause();
        String why =
            c instanceof ClaimCheckFailure f ? f.reason().toString() : c.getClass().getSimpleName();
        failures.computeIfAbsent(why, k -> new LongAdder()).increment();
      }
    }
  }

  private void print(List<Sample> samples, int clients, int cap, int latencyMs, String load) {
    System.out.printf(
        "clients %d, throttle cap %d, GET latency %d ms, %d claims of %d B, "
            + "load average at start %s, at end %s%n",
        clients, cap, latencyMs, CLAIMS, VALUE_BYTES, load, EndToEndHarness.loadAverage());
    System.out.println("t_s,limit,inflight,queued,ok_per_s,failed_per_s,gets_per_s");
    double before = 0;
    for (Sample s : samples) {
      double dt = s.t() - before; // the sampler does not wake every 100 ms on the dot
      before = s.t();
      System.out.printf(
          Locale.ROOT,
          "%.2f,%d,%d,%d,%.0f,%.0f,%.0f%n",
          s.t(),
          s.stats().limit(),
          s.stats().inflight(),
          s.stats().queued(),
          s.ok() / dt,
          s.failed() / dt,
          s.gets() / dt);
    }
    System.out.println("redeems ok " + ok.sum() + ", failed " + failed.sum() + " " + failures);
  }
}
