package io.ankusa.claimcheck.benchmarks;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The claim gateway under a real HTTP load generator (benchmarks/gateway/run.sh): S3Proxy
 * (testkit's ServersMain) and gateway jars as child processes; 64 claims each of 256 KiB and 1 MiB
 * checked in; at 1, 16 and 64 connections, {@code wrk} GETting them in turn from a gateway with its
 * cache off (each GET a store read) and from one as deployed (default settings, its cache on), side
 * by side with a raw SDK GET loop (Apache 5 client, in this JVM) over the same pack objects, in the
 * balanced order A B C C B A: MiB/s, the ratios, the deployed cache's hit share, and client CPU per
 * MiB (wrk's from {@code /usr/bin/time}, the loop's from this process); then 100 concurrent GETs of
 * one fresh ref on the deployed gateway against its reader's count of store fetches; then, on a
 * gateway whose request gate holds 16, and on one whose gate is sized for the machine (2 per core):
 * admitted p99 with 1 client (unloaded) and the gate's capacity, and at 4x the gate honouring
 * Retry-After and hammering, each with its shed answers' latency; then {@link GatewayExtremes}: 200
 * GETs against a hung store, and a 2 GiB claim up and down through a gateway under {@code
 * -Xmx256m}. Args: {@code [seconds per run (10)] [gateway jar]}. Not thread-safe.
 */
public final class GatewayHarness {

  private static final int[] SIZES = {256 << 10, 1 << 20};
  private static final int[] CONNECTIONS = {1, 16, 64};
  private static final int GATE = 16;

  /**
   * The gate sized for this machine: two requests in flight per core. An operator sizes {@code
   * claimcheck.max.concurrent.reads} to the box; 16 on 2 cores already queues for the CPU at the
   * gate's capacity (each admitted GET's work is CPU, the cache answering), so "4x the gate" there
   * measures the run queue as much as the gate. Both are printed.
   */
  private static final int MACHINE_GATE = 2 * Runtime.getRuntime().availableProcessors();

  /** The claim larger than the gateway's heap (the 2 GiB; -Dbig.bytes to change). */
  private static final long BIG_BYTES = Long.getLong("big.bytes", 2L << 30);

  /**
   * Seconds of warm-up load each side gets before anything is measured, spread over {@link
   * #WARMUP_PASSES} passes of every cell ({@code -Dgateway.warmup.seconds}); the gated gateways
   * each get a quarter of it.
   */
  private static final int WARMUP_SECONDS = Integer.getInteger("gateway.warmup.seconds", 120);

  private static final int WARMUP_PASSES = 2;

  /** Distinct claims of each size: concurrent requests ask for different ones. */
  private static final int CLAIMS = 64;

  private GatewayHarness() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    Path jar = Path.of(args.length > 1 ? args[1] : "gateway/target/claimcheck-gateway.jar");
    Path dir = Files.createTempDirectory("gateway-bench");
    try (GatewayProcesses rig = new GatewayProcesses(dir, jar)) {
      rig.startServers();
      // The cache off, so each GET is a store read, as each of the raw loop's is.
      URI gw = rig.startGateway("gateway", Map.of("claimcheck.cache.max.bytes", "0"));
      URI cached = rig.startGateway("cached", Map.of());
      URI gated =
          rig.startGateway(
              "gated", Map.of("claimcheck.max.concurrent.reads", Integer.toString(GATE)));
      URI sized =
          MACHINE_GATE == GATE
              ? null
              : rig.startGateway(
                  "sized",
                  Map.of("claimcheck.max.concurrent.reads", Integer.toString(MACHINE_GATE)));
      GatewayLoad load = new GatewayLoad(rig.token);
      String firstRef;
      try (S3Client s3 = s3(rig.s3)) {
        String[][] refs = new String[SIZES.length][CLAIMS];
        Path script = Files.writeString(dir.resolve("paths.lua"), Wrk.SCRIPT);
        Path[] paths = new Path[SIZES.length];
        for (int i = 0; i < SIZES.length; i++) {
          StringBuilder lines = new StringBuilder();
          for (int j = 0; j < CLAIMS; j++) {
            refs[i][j] = load.checkIn(gw, random(SIZES[i], i * 1000L + j));
            lines.append("/v1/claims/").append(refs[i][j]).append('\n');
          }
          paths[i] = Files.writeString(dir.resolve("paths-" + SIZES[i] + ".txt"), lines);
        }
        List<S3Object> objects =
            s3.listObjectsV2Paginator(b -> b.bucket(GatewayProcesses.BUCKET)).contents().stream()
                .toList();
        System.out.printf(
            "%n%-8s %5s  %13s %6s  %14s %6s %5s  %9s  %14s %14s  %9s%n",
            "claim",
            "conns",
            "cache-off MiB/s",
            "ratio",
            "deployed MiB/s",
            "ratio",
            "hits",
            "raw MiB/s",
            "wrk CPU ms/MiB",
            "raw CPU ms/MiB",
            "gw p99 ms");
        // Warm-up passes over every cell, every side (JIT, S3Proxy, connection pools, the deployed
        // gateway's cache), discarded. Each gateway is a JVM of its own: on 2 cores its JIT takes
        // more than a minute of load to settle (measured, 256 KiB, 1 connection, 8 s runs: 119,
        // 207, 343, 368, 509, 570, 737, 814, 1001, 1037 req/s), so a short pass measured a cold
        // gateway against a raw loop in this already warm JVM.
        int cells = SIZES.length * CONNECTIONS.length;
        int warm = Math.max(2, WARMUP_SECONDS / (WARMUP_PASSES * cells));
        System.out.printf(
            "warm-up: %d passes of %d s per cell and side (-Dgateway.warmup.seconds=%d)%n",
            WARMUP_PASSES, warm, WARMUP_SECONDS);
        for (int pass = 0; pass < WARMUP_PASSES; pass++) {
          for (int i = 0; i < SIZES.length; i++) {
            List<String> keys = packsOf(objects, SIZES[i]);
            for (int c : CONNECTIONS) {
              Wrk.run(gw, rig.token, script, paths[i], c, warm);
              Wrk.run(cached, rig.token, script, paths[i], c, warm);
              rawLoop(s3, keys, c, warm);
            }
          }
        }
        for (int i = 0; i < SIZES.length; i++) {
          List<String> keys = packsOf(objects, SIZES[i]);
          for (int c : CONNECTIONS) {
            // Balanced order, A B C C B A: each side's figure is the mean of its two runs. A is
            // the gateway with its cache off (each GET a store read, as each of the raw loop's
            // is), B the gateway as deployed (default settings: its cache on, 64 MiB), C the raw
            // SDK loop over the same pack objects.
            Wrk off1 = Wrk.run(gw, rig.token, script, paths[i], c, seconds);
            double fetches0 = load.storeFetches(cached);
            Wrk dep1 = Wrk.run(cached, rig.token, script, paths[i], c, seconds);
            double[] raw1 = rawLoop(s3, keys, c, seconds);
            double[] raw2 = rawLoop(s3, keys, c, seconds);
            Wrk dep2 = Wrk.run(cached, rig.token, script, paths[i], c, seconds);
            double fetched = load.storeFetches(cached) - fetches0;
            Wrk off2 = Wrk.run(gw, rig.token, script, paths[i], c, seconds);
            double toMib = (double) SIZES[i] / (1 << 20);
            double offMib = (off1.requestsPerSecond() + off2.requestsPerSecond()) / 2 * toMib;
            double depMib = (dep1.requestsPerSecond() + dep2.requestsPerSecond()) / 2 * toMib;
            double depRequests = (dep1.requestsPerSecond() + dep2.requestsPerSecond()) * seconds;
            double[] raw = {(raw1[0] + raw2[0]) / 2, (raw1[1] + raw2[1]) / 2};
            long non2xx = off1.non2xx() + off2.non2xx() + dep1.non2xx() + dep2.non2xx();
            System.out.printf(
                "%-8s %5d  %13.1f %5.2fx  %14.1f %5.2fx %4.0f%%  %9.1f  %14.2f %14.2f  %9.1f%s%n",
                (SIZES[i] >> 10) + " KiB",
                c,
                offMib,
                offMib / raw[0],
                depMib,
                depMib / raw[0],
                100 * Math.max(0, 1 - fetched / Math.max(1, depRequests)),
                raw[0],
                (off1.cpuSeconds() + off2.cpuSeconds()) * 1e3 / (offMib * 2 * seconds),
                raw[1],
                Math.max(off1.p99Ms(), off2.p99Ms()),
                non2xx > 0 ? "  (" + non2xx + " non-2xx!)" : "");
          }
        }
        System.out.println(
            "(ratio: to the raw SDK loop; cache-off: every GET a store read; deployed: default"
                + " settings, 'hits' the share of its GETs its cache answered; CPU and p99: the"
                + " cache-off gateway's wrk)");

        String fresh = load.checkIn(cached, random(1 << 20, 99));
        double before = load.storeFetches(cached);
        int ok = load.burst(cached, "/v1/claims/" + fresh, 100);
        double fetches = load.storeFetches(cached) - before;
        System.out.printf(
            "%n100 concurrent GETs of one fresh 1 MiB ref: %d answered 200, %.0f store fetch(es)"
                + " (reader metric claimcheck_read_total{outcome=store})%n",
            ok, fetches);

        firstRef = refs[0][0];
        String one = "/v1/claims/" + refs[0][0];
        shedding(load, gated, GATE, one, seconds, "");
        if (sized != null) {
          shedding(
              load,
              sized,
              MACHINE_GATE,
              one,
              seconds,
              " (sized for this machine: 2 per core, " + cores() + " cores)");
        }
      }
      // As deployed (16 inline leads of the 64 threads), and with none (every wait asynchronous).
      GatewayExtremes.hungStore(rig, "/v1/claims/" + firstRef, 200, 2000, 16);
      GatewayExtremes.hungStore(rig, "/v1/claims/" + firstRef, 200, 2000, 0);
      GatewayExtremes.bigClaim(rig, dir, BIG_BYTES, "-Xmx256m");
    }
  }

  /**
   * On a gateway whose gate holds {@code gate}: admitted p99 with 1 client (unloaded) and {@code
   * gate} (its capacity), then at 4x honouring Retry-After and hammering, with the shed answers'
   * latency.
   */
  static void shedding(GatewayLoad load, URI gated, int gate, String one, int seconds, String note)
      throws Exception {
    int over = 4 * gate;
    // Warm-up (the claim cached, the gated paths compiled): at the gate's capacity, then past it.
    int warm = Math.max(2, WARMUP_SECONDS / 8);
    load.load(gated, one, gate, warm, 0);
    load.load(gated, one, over, warm, 0);
    GatewayLoad.Latencies idle = load.load(gated, one, 1, seconds, 0);
    GatewayLoad.Latencies full = load.load(gated, one, gate, seconds, 0);
    // At 4x the gate: clients that honour Retry-After (as the shipped Python and Node clients do:
    // the offered load is 4x the gate), then clients that ask again at once (each shed answer is
    // followed by another request within a millisecond: an offered load far past 4x, the load
    // generator's threads competing with the gateway for the cores).
    GatewayLoad.Latencies polite = load.load(gated, one, over, seconds, 1000);
    GatewayLoad.Latencies hammer = load.load(gated, one, over, seconds, 0);
    double idleP99 = GatewayLoad.Latencies.percentile(idle.admitted(), 0.99);
    double fullP99 = GatewayLoad.Latencies.percentile(full.admitted(), 0.99);
    System.out.printf(
        "%ngate of %d%s, one 256 KiB claim (cached): admitted p99 unloaded (1 client) %.2f ms,"
            + " at the gate's capacity (%d clients) %.2f ms (%d shed)%n",
        gate, note, idleP99, gate, fullP99, full.shed().size());
    shedLine("4x, clients honouring Retry-After", polite, idleP99, fullP99);
    shedLine("4x, clients hammering (no back-off)", hammer, idleP99, fullP99);
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  private static void shedLine(
      String what, GatewayLoad.Latencies l, double idleP99, double fullP99) {
    double p99 = GatewayLoad.Latencies.percentile(l.admitted(), 0.99);
    System.out.printf(
        "  %s: %d admitted, p99 %.2f ms = %.2fx unloaded, %.2fx at capacity (goal <= 2x);"
            + " %d shed, p50 %.2f ms, p99 %.2f ms, max %.2f ms (goal < 5 ms); %d other%n",
        what,
        l.admitted().size(),
        p99,
        p99 / idleP99,
        p99 / fullP99,
        l.shed().size(),
        GatewayLoad.Latencies.percentile(l.shed(), 0.5),
        GatewayLoad.Latencies.percentile(l.shed(), 0.99),
        GatewayLoad.Latencies.percentile(l.shed(), 1.0),
        l.other());
  }

  /** The pack objects holding one claim of {@code size} each (a pack adds a small header). */
  private static List<String> packsOf(List<S3Object> objects, int size) {
    List<String> keys =
        objects.stream()
            .filter(o -> o.size() >= size && o.size() < size + 4096)
            .map(S3Object::key)
            .toList();
    if (keys.size() < CLAIMS) {
      throw new IllegalStateException(keys.size() + " packs of " + size + " B: " + objects);
    }
    return keys;
  }

  /**
   * {@code threads} loops GETting {@code keys} in turn (each from its own place) for {@code
   * seconds}: {MiB/s, CPU ms per MiB}.
   */
  static double[] rawLoop(S3Client s3, List<String> keys, int threads, int seconds)
      throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    AtomicLong bytes = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    long end = t0 + Duration.ofSeconds(seconds).toNanos();
    try {
      List<Future<?>> loops = new java.util.ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int from = i * 7;
        loops.add(
            pool.submit(
                () -> {
                  int k = from;
                  while (System.nanoTime() < end) {
                    String key = keys.get(k++ % keys.size());
                    ResponseBytes<GetObjectResponse> r =
                        s3.getObjectAsBytes(b -> b.bucket(GatewayProcesses.BUCKET).key(key));
                    bytes.addAndGet(r.asByteArrayUnsafe().length);
                  }
                  return null;
                }));
      }
      for (Future<?> f : loops) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    double mib = bytes.get() / (double) (1 << 20);
    double secs = (System.nanoTime() - t0) / 1e9;
    return new double[] {mib / secs, (os.getProcessCpuTime() - cpu0) / 1e6 / mib};
  }

  static S3Client s3(Map<String, String> s) {
    return S3Client.builder()
        .httpClient(Apache5HttpClient.builder().maxConnections(128).build())
        .endpointOverride(URI.create(s.get("s3")))
        .region(Region.of(s.get("region")))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s.get("access"), s.get("secret"))))
        .build();
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }
}
