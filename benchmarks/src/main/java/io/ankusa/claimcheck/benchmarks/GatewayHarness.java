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
 * cache off (each GET a store read), side by side with a raw SDK GET loop (Apache 5 client, in this
 * JVM) over the same pack objects: MiB/s, the ratio, and client CPU per MiB (wrk's from {@code
 * /usr/bin/time}, the loop's from this process); then 100 concurrent GETs of one fresh ref on a
 * gateway at default settings against its reader's count of store fetches; then, on a gateway whose
 * request gate holds 16, 64 clients (4x): shed answers' latency and admitted p99 vs one client
 * unloaded. Args: {@code [seconds per run (10)] [gateway jar]}. Not thread-safe.
 */
public final class GatewayHarness {

  private static final int[] SIZES = {256 << 10, 1 << 20};
  private static final int[] CONNECTIONS = {1, 16, 64};
  private static final int GATE = 16;

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
      GatewayLoad load = new GatewayLoad(rig.token);
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
            "%n%-8s %5s  %12s %12s %6s  %14s %14s  %9s%n",
            "claim",
            "conns",
            "gateway MiB/s",
            "raw MiB/s",
            "ratio",
            "wrk CPU ms/MiB",
            "raw CPU ms/MiB",
            "gw p99 ms");
        // A warm-up pass over every cell, both sides (JIT, S3Proxy, connection pools), discarded:
        // without it the first cell measured whichever side ran first cold.
        int warm = Math.max(2, seconds / 4);
        for (int i = 0; i < SIZES.length; i++) {
          List<String> keys = packsOf(objects, SIZES[i]);
          for (int c : CONNECTIONS) {
            Wrk.run(gw, rig.token, script, paths[i], c, warm);
            rawLoop(s3, keys, c, warm);
          }
        }
        for (int i = 0; i < SIZES.length; i++) {
          List<String> keys = packsOf(objects, SIZES[i]);
          for (int c : CONNECTIONS) {
            // Balanced order, A B B A: each side's figure is the mean of its two runs.
            Wrk w1 = Wrk.run(gw, rig.token, script, paths[i], c, seconds);
            double[] raw1 = rawLoop(s3, keys, c, seconds);
            double[] raw2 = rawLoop(s3, keys, c, seconds);
            Wrk w = Wrk.run(gw, rig.token, script, paths[i], c, seconds);
            double gwMib =
                (w1.requestsPerSecond() + w.requestsPerSecond()) / 2 * SIZES[i] / (1 << 20);
            double[] raw = {(raw1[0] + raw2[0]) / 2, (raw1[1] + raw2[1]) / 2};
            System.out.printf(
                "%-8s %5d  %12.1f %12.1f %5.2fx  %14.2f %14.2f  %9.1f%s%n",
                (SIZES[i] >> 10) + " KiB",
                c,
                gwMib,
                raw[0],
                gwMib / raw[0],
                (w1.cpuSeconds() + w.cpuSeconds()) * 1e3 / (gwMib * 2 * seconds),
                raw[1],
                Math.max(w1.p99Ms(), w.p99Ms()),
                w1.non2xx() + w.non2xx() > 0
                    ? "  (" + (w1.non2xx() + w.non2xx()) + " non-2xx!)"
                    : "");
          }
        }

        String fresh = load.checkIn(cached, random(1 << 20, 99));
        double before = load.storeFetches(cached);
        int ok = load.burst(cached, "/v1/claims/" + fresh, 100);
        double fetches = load.storeFetches(cached) - before;
        System.out.printf(
            "%n100 concurrent GETs of one fresh 1 MiB ref: %d answered 200, %.0f store fetch(es)"
                + " (reader metric claimcheck_read_total{outcome=store})%n",
            ok, fetches);

        String one = "/v1/claims/" + refs[0][0];
        load.load(gated, one, 1, Math.max(2, seconds / 5)); // warm-up
        GatewayLoad.Latencies idle = load.load(gated, one, 1, seconds);
        GatewayLoad.Latencies busy = load.load(gated, one, 4 * GATE, seconds);
        double idleP99 = GatewayLoad.Latencies.percentile(idle.admitted(), 0.99);
        double busyP99 = GatewayLoad.Latencies.percentile(busy.admitted(), 0.99);
        System.out.printf(
            "%ngate of %d, 256 KiB: unloaded (1 client) p99 %.1f ms; at %d clients: %d admitted,"
                + " p99 %.1f ms (%.2fx unloaded); %d shed, p50 %.2f ms, p99 %.2f ms, max %.2f ms;"
                + " %d other%n",
            GATE,
            idleP99,
            4 * GATE,
            busy.admitted().size(),
            busyP99,
            busyP99 / idleP99,
            busy.shed().size(),
            GatewayLoad.Latencies.percentile(busy.shed(), 0.5),
            GatewayLoad.Latencies.percentile(busy.shed(), 0.99),
            GatewayLoad.Latencies.percentile(busy.shed(), 1.0),
            busy.other());
      }
    }
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
  private static double[] rawLoop(S3Client s3, List<String> keys, int threads, int seconds)
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

  private static S3Client s3(Map<String, String> s) {
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

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }
}
