package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The single-record hot path against the raw AWS SDK (issue 8, section 2), in one JVM against one
 * S3 server (S3Proxy, in-memory, on loopback): a {@code getObject}/{@code putObject} loop through
 * each HTTP client the SDK offers (Netty async, Apache 5 sync, the CRT-based async client) and our
 * {@link ClaimCheckDeserializer#deserialize} / {@link ClaimCheckSerializer#serialize}, configured
 * through config keys only (the drop-in path), on the same objects: {@code ours-deser}/{@code
 * ours-ser} on the default (Netty) HTTP client, {@code ours-deser-crt}/{@code ours-ser-crt} with
 * {@code claimcheck.s3.http.client=crt}.
 *
 * <p>Every round runs every cell (size × threads × GET/PUT × candidate) for the same time, the
 * candidates in a rotated order, so slow drift of the shared machine's load hits all of them alike;
 * a figure is MiB/s of values, and its ratio is taken against the fastest raw client of the same
 * cell in the same round. Each cell also reports the client side's CPU per MiB (the process's CPU
 * time less S3Proxy's threads', per MiB moved: steadier than MiB/s on a shared machine, where
 * throughput follows the CPU share the scheduler gives us), the CPU share of S3Proxy's threads
 * (Jetty's {@code qtp*} pool) in the whole process and the load average, so a reader sees when the
 * server or the machine, not the client, sets the pace.
 *
 * <p>GETs cycle through a pool of claims, each thread its own slice; our cache is off ({@code
 * claimcheck.cache.max.bytes=0}), so every redeem is a store GET, as on a fresh consumer (the
 * cache's put is one map insert, not measured here); the raw clients GET the very same pack objects
 * (whole objects: the claim plus a 40-odd byte pack header). Raw PUTs overwrite a few keys per
 * thread; ours mints a fresh pack per value (put-if-absent) and the harness deletes them after each
 * cell, untimed.
 *
 * <pre>
 *   mvn -B -pl benchmarks -am package -DskipTests
 *   java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar \
 *       io.ankusa.claimcheck.benchmarks.S3ParityHarness [secondsPerCell=3] [rounds=3] \
 *       [sizes=262144,1048576] [threads=1,16] [candidates=all]
 * </pre>
 */
public final class S3ParityHarness {

  private static final String BUCKET = "parity";
  private static final String PREFIX = "ours/";
  private static final long POOL_BYTES = 160L << 20; // 2.5 × claimcheck.cache.max.bytes (64 MiB)

  /** One way to GET or PUT value {@code n} of a size on thread {@code t}. */
  interface Op {
    void run(int t, long n) throws Exception;
  }

  private record Cell(String candidate, Op op) {}

  private final EmbeddedS3 s3;
  private final Map<String, Object> config = new HashMap<>();
  private final S3AsyncClient netty;
  private final S3Client apache;
  private final S3AsyncClient crt;
  private final ConcurrentLinkedQueue<String> oursPut = new ConcurrentLinkedQueue<>();
  private final Map<Integer, List<byte[]>> refs = new HashMap<>();
  private final Map<Integer, List<String>> keys = new HashMap<>();
  private final Map<Integer, byte[]> values = new HashMap<>();
  private final Map<Integer, Deserializer<byte[]>[]> deserializers = new HashMap<>();
  private final Map<Integer, Serializer<byte[]>[]> serializers = new HashMap<>();

  /** Ours again with {@code claimcheck.s3.http.client=crt} (candidates {@code ours-*-crt}). */
  private final Map<Integer, Deserializer<byte[]>[]> crtDeserializers = new HashMap<>();

  private final Map<Integer, Serializer<byte[]>[]> crtSerializers = new HashMap<>();
  private final int maxThreads;
  private volatile int cellThreads = 1;

  private S3ParityHarness(EmbeddedS3 s3, int maxThreads) {
    this.s3 = s3;
    this.maxThreads = maxThreads;
    s3.createBucket(BUCKET);
    config.putAll(s3.claimCheckConfig("s3://" + BUCKET + "/" + PREFIX));
    // Every redeem must be a store GET: with 16 threads, some of them stalled by the scheduler,
    // a thread came back to an object of its slice while it was still cached (seen: ours at 1.3 to
    // 1.9x the raw clients). A cache put is one map insert; the GET is what is measured.
    config.put("claimcheck.cache.max.bytes", "0");
    // -Dclaimcheck.<key>=<value> passes one more config key to ours (or overrides one).
    System.getProperties().stringPropertyNames().stream()
        .filter(ClaimCheckConfig::isClaimCheckKey)
        .forEach(k -> config.put(k, System.getProperty(k)));
    netty = async(NettyNioAsyncHttpClient.builder().maxConcurrency(128).build());
    crt = async(AwsCrtAsyncHttpClient.builder().maxConcurrency(128).build());
    apache = RawClients.sync(s3, s3.endpoint());
  }

  private String extraKeys() {
    Map<String, Object> extra = new java.util.TreeMap<>(config);
    extra.keySet().removeIf(k -> k.startsWith("claimcheck.s3.") || k.equals("claimcheck.stores"));
    return extra.isEmpty() ? "(defaults)" : extra.toString();
  }

  private StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(s3.accessKey(), s3.secretKey()));
  }

  /** The raw async client, configured as ours is: no checksums beyond what S3 requires. */
  private S3AsyncClient async(SdkAsyncHttpClient http) {
    return S3AsyncClient.builder()
        .httpClient(http)
        .endpointOverride(s3.endpoint())
        .region(Region.of(s3.region()))
        .forcePathStyle(true)
        .credentialsProvider(credentials())
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .build();
  }

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int[] sizes = ints(args.length > 2 ? args[2] : "262144,1048576");
    int[] threads = ints(args.length > 3 ? args[3] : "1,16");
    String only = args.length > 4 ? args[4] : "all";
    int maxThreads = Arrays.stream(threads).max().orElse(1);
    EmbeddedS3 s3 = EmbeddedS3.start();
    S3ParityHarness h = new S3ParityHarness(s3, maxThreads);
    try {
      System.out.printf(
          "S3ParityHarness: %d s per cell, %d rounds (+1 warm-up), sizes %s, threads %s,"
              + " %d cores, load %s, JVM %s, our extra config: %s%n",
          seconds,
          rounds,
          Arrays.toString(sizes),
          Arrays.toString(threads),
          Runtime.getRuntime().availableProcessors(),
          load(),
          System.getProperty("java.version"),
          h.extraKeys());
      for (int size : sizes) {
        h.seed(size);
      }
      Map<String, List<double[]>> results = new LinkedHashMap<>();
      for (int round = 0; round <= rounds; round++) {
        for (int size : sizes) {
          for (int t : threads) {
            for (String dir : List.of("GET", "PUT")) {
              List<Cell> cells = h.cells(size, dir, only);
              Map<String, double[]> got = new LinkedHashMap<>();
              for (int i = 0; i < cells.size(); i++) {
                Cell c = cells.get((i + round) % cells.size()); // rotate the order each round
                got.put(c.candidate(), h.measure(c.op(), t, size, round == 0 ? 1 : seconds));
                h.cleanUp();
              }
              double fastestRaw =
                  got.entrySet().stream()
                      .filter(e -> e.getKey().startsWith("raw"))
                      .mapToDouble(e -> e.getValue()[0])
                      .max()
                      .orElse(Double.NaN);
              for (Map.Entry<String, double[]> e : got.entrySet()) {
                double[] v = e.getValue();
                String row =
                    String.format("%-4s %4d KiB %2d thr %-14s", dir, size >> 10, t, e.getKey());
                System.out.printf(
                    "round %d %s %8.1f MiB/s  %5.2fx fastest raw  s3proxy cpu %4.1f%%"
                        + "  process cpu %5.2f cores  client cpu %5.2f ms/MiB  load %s%n",
                    round, row, v[0], v[0] / fastestRaw, 100 * v[1], v[2], v[4], v[3]);
                if (round > 0) {
                  results
                      .computeIfAbsent(row, k -> new ArrayList<>())
                      .add(new double[] {v[0], v[0] / fastestRaw, v[1], v[3], v[4]});
                }
              }
            }
          }
        }
      }
      System.out.printf(
          "%nmedian of %d rounds (ratio: per round, to the fastest raw client of that"
              + " round's cell)%n",
          rounds);
      System.out.printf(
          "%-32s %10s %8s %10s %14s %6s%n",
          "cell", "MiB/s", "ratio", "s3proxy", "client ms/MiB", "load");
      for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
        System.out.printf(
            "%-32s %10.1f %7.2fx %9.1f%% %14.2f %6.1f%n",
            e.getKey(),
            median(e.getValue(), 0),
            median(e.getValue(), 1),
            100 * median(e.getValue(), 2),
            median(e.getValue(), 4),
            median(e.getValue(), 3));
      }
      System.out.printf("%nCPU by thread group over the whole run (ms):%n");
      CpuSample.byGroup().entrySet().stream()
          .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
          .limit(12)
          .forEach(e -> System.out.printf("  %-40s %8d%n", e.getKey(), e.getValue() / 1_000_000));
    } finally {
      h.close();
      s3.close();
    }
    System.exit(0);
  }

  private static Deserializer<byte[]> deserializer(Map<String, Object> config) {
    ClaimCheckDeserializer<byte[]> d = new ClaimCheckDeserializer<>();
    d.configure(config, false);
    return d;
  }

  private static Serializer<byte[]> serializer(Map<String, Object> config) {
    ClaimCheckSerializer<byte[]> s = new ClaimCheckSerializer<>();
    s.configure(config, false);
    return s;
  }

  /**
   * Checks in the GET pool of {@code size} through our serializer and checks one redeem each way.
   */
  @SuppressWarnings("unchecked")
  private void seed(int size) throws Exception {
    byte[] value = new byte[size];
    new Random(size).nextBytes(value);
    values.put(size, value);
    Map<String, Object> crtConfig = new HashMap<>(config);
    crtConfig.put("claimcheck.s3.http.client", "crt");
    Deserializer<byte[]>[] ds = new Deserializer[maxThreads];
    Serializer<byte[]>[] ss = new Serializer[maxThreads];
    Deserializer<byte[]>[] cds = new Deserializer[maxThreads];
    Serializer<byte[]>[] css = new Serializer[maxThreads];
    for (int i = 0; i < maxThreads; i++) {
      ds[i] = deserializer(config);
      ss[i] = serializer(config);
      cds[i] = deserializer(crtConfig);
      css[i] = serializer(crtConfig);
    }
    deserializers.put(size, ds);
    serializers.put(size, ss);
    crtDeserializers.put(size, cds);
    crtSerializers.put(size, css);
    int pool = (int) Math.max(64, POOL_BYTES / size);
    List<byte[]> r = new ArrayList<>(pool);
    List<String> k = new ArrayList<>(pool);
    for (int i = 0; i < pool; i++) {
      Headers headers = NewHeaders.create();
      byte[] ref = ss[0].serialize("parity", headers, value);
      ClaimRef cr = RefCodec.decode(ref);
      r.add(ref);
      k.add(PREFIX + cr.tenant().value() + "/" + cr.packId().hex());
    }
    refs.put(size, r);
    keys.put(size, k);
    Headers marked = NewHeaders.create();
    ClaimCheckHeaders.mark(marked, false);
    if (!Arrays.equals(value, ds[0].deserialize("parity", marked, r.get(0)))
        || !Arrays.equals(value, cds[0].deserialize("parity", marked, r.get(r.size() - 1)))) {
      throw new AssertionError("our redeem returned other bytes");
    }
    byte[] whole =
        netty
            .getObject(b -> b.bucket(BUCKET).key(k.get(0)), AsyncResponseTransformer.toBytes())
            .join()
            .asByteArrayUnsafe();
    if (whole.length < size) {
      throw new AssertionError("the pack object is shorter than its claim: " + whole.length);
    }
    System.out.printf(
        "seeded %d claims of %d B (pack objects of %d B)%n", pool, size, whole.length);
  }

  private List<Cell> cells(int size, String dir, String only) {
    List<String> kk = keys.get(size);
    List<byte[]> rr = refs.get(size);
    byte[] value = values.get(size);
    int pool = kk.size();
    List<Cell> cells = new ArrayList<>();
    if (dir.equals("GET")) {
      cells.add(
          new Cell(
              "raw-netty",
              (t, n) ->
                  check(
                      netty
                          .getObject(
                              b -> b.bucket(BUCKET).key(kk.get(index(t, n, pool))),
                              AsyncResponseTransformer.toBytes())
                          .join()
                          .asByteArrayUnsafe(),
                      size)));
      cells.add(
          new Cell(
              "raw-apache5",
              (t, n) ->
                  check(
                      apache
                          .getObject(
                              b -> b.bucket(BUCKET).key(kk.get(index(t, n, pool))),
                              ResponseTransformer.toBytes())
                          .asByteArrayUnsafe(),
                      size)));
      cells.add(
          new Cell(
              "raw-crt",
              (t, n) ->
                  check(
                      crt.getObject(
                              b -> b.bucket(BUCKET).key(kk.get(index(t, n, pool))),
                              AsyncResponseTransformer.toBytes())
                          .join()
                          .asByteArrayUnsafe(),
                      size)));
      for (boolean onCrt : new boolean[] {false, true}) {
        Deserializer<byte[]>[] ds = (onCrt ? crtDeserializers : deserializers).get(size);
        cells.add(
            new Cell(
                onCrt ? "ours-deser-crt" : "ours-deser",
                (t, n) -> {
                  Headers h = NewHeaders.create();
                  ClaimCheckHeaders.mark(h, false);
                  byte[] got = ds[t].deserialize("parity", h, rr.get(index(t, n, pool)));
                  if (got.length != size) {
                    throw new AssertionError("redeemed " + got.length + " B");
                  }
                }));
      }
    } else {
      cells.add(
          new Cell(
              "raw-netty",
              (t, n) ->
                  netty
                      .putObject(
                          b -> b.bucket(BUCKET).key("raw/netty/" + t + "/" + (n & 7)),
                          AsyncRequestBody.fromBytes(value))
                      .join()));
      cells.add(
          new Cell(
              "raw-apache5",
              (t, n) ->
                  apache.putObject(
                      b -> b.bucket(BUCKET).key("raw/apache/" + t + "/" + (n & 7)),
                      RequestBody.fromBytes(value))));
      cells.add(
          new Cell(
              "raw-crt",
              (t, n) ->
                  crt.putObject(
                          b -> b.bucket(BUCKET).key("raw/crt/" + t + "/" + (n & 7)),
                          AsyncRequestBody.fromBytes(value))
                      .join()));
      for (boolean onCrt : new boolean[] {false, true}) {
        Serializer<byte[]>[] ss = (onCrt ? crtSerializers : serializers).get(size);
        cells.add(
            new Cell(
                onCrt ? "ours-ser-crt" : "ours-ser",
                (t, n) -> {
                  byte[] ref = ss[t].serialize("parity", NewHeaders.create(), value);
                  ClaimRef cr = RefCodec.decode(ref);
                  oursPut.add(PREFIX + cr.tenant().value() + "/" + cr.packId().hex());
                }));
      }
    }
    if (!only.equals("all")) {
      cells.removeIf(c -> !c.candidate().matches(only));
    }
    return cells;
  }

  /**
   * Thread {@code t}'s {@code n}th object: each of the cell's threads walks its own slice of the
   * pool, so no object is read twice within {@code pool} reads (every redeem misses the cache).
   */
  private int index(int t, long n, int pool) {
    int slice = pool / cellThreads;
    return (int) (t * (long) slice + n % slice);
  }

  private static void check(byte[] got, int size) {
    if (got.length < size) {
      throw new AssertionError("GET returned " + got.length + " B");
    }
  }

  /**
   * Runs {@code op} on {@code threads} threads for {@code seconds}; returns {MiB/s, S3Proxy's share
   * of the process CPU, process CPU in cores, load average, client CPU ms per MiB}.
   */
  private double[] measure(Op op, int threads, int size, int seconds) throws Exception {
    cellThreads = threads;
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    long[] counts = new long[threads];
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int t = i;
      Thread w =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  go.await();
                  long n = 0;
                  while (!stop.get()) {
                    op.run(t, n++);
                    counts[t]++;
                  }
                } catch (Throwable e) {
                  failed.compareAndSet(null, e);
                }
              },
              "parity-" + i);
      w.start();
      workers.add(w);
    }
    ready.await();
    CpuSample before = CpuSample.take();
    long start = System.nanoTime();
    go.countDown();
    Thread.sleep(seconds * 1000L);
    stop.set(true);
    for (Thread w : workers) {
      w.join();
    }
    long took = System.nanoTime() - start;
    CpuSample after = CpuSample.take();
    if (failed.get() != null) {
      throw new IllegalStateException("a worker failed", failed.get());
    }
    long ops = Arrays.stream(counts).sum();
    double mibs = ops * (double) size / (1 << 20) / (took / 1e9);
    double processCpu = after.process - before.process;
    double server = after.serverSince(before);
    double clientCpuMsPerMib = (processCpu - server) / 1e6 / (ops * (double) size / (1 << 20));
    return new double[] {
      mibs, server / processCpu, processCpu / took, loadValue(), clientCpuMsPerMib
    };
  }

  /** Deletes what our serializer checked in during the last cell (untimed). */
  private void cleanUp() {
    String key;
    while ((key = oursPut.poll()) != null) {
      String k = key;
      netty.deleteObject(b -> b.bucket(BUCKET).key(k)).join();
    }
  }

  private void close() {
    for (Deserializer<byte[]>[] ds : deserializers.values()) {
      Arrays.stream(ds).forEach(Deserializer::close);
    }
    for (Serializer<byte[]>[] ss : serializers.values()) {
      Arrays.stream(ss).forEach(Serializer::close);
    }
    crtDeserializers.values().forEach(ds -> Arrays.stream(ds).forEach(Deserializer::close));
    crtSerializers.values().forEach(ss -> Arrays.stream(ss).forEach(Serializer::close));
    netty.close();
    apache.close();
    crt.close();
  }

  private static int[] ints(String csv) {
    return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
  }

  private static double median(List<double[]> rows, int column) {
    double[] v = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "?";
    }
  }

  private static double loadValue() {
    try {
      return Double.parseDouble(load().split(" ")[0]);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** The process's CPU time and the part of it S3Proxy's (Jetty's) threads spent, in ns. */
  private record CpuSample(long process, Map<Long, Long> server) {
    /** Thread name without digits, so pools fold into one line. */
    static Map<String, Long> byGroup() {
      java.lang.management.ThreadMXBean mx =
          java.lang.management.ManagementFactory.getThreadMXBean();
      Map<String, Long> groups = new HashMap<>();
      for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
        if (info != null) {
          groups.merge(
              info.getThreadName().replaceAll("[0-9]+", "#"),
              Math.max(0, mx.getThreadCpuTime(info.getThreadId())),
              Long::sum);
        }
      }
      return groups;
    }

    static CpuSample take() {
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean)
              java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      java.lang.management.ThreadMXBean mx =
          java.lang.management.ManagementFactory.getThreadMXBean();
      Map<Long, Long> server = new HashMap<>();
      for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
        if (info != null && info.getThreadName().startsWith("S3Proxy-Jetty")) {
          server.put(info.getThreadId(), Math.max(0, mx.getThreadCpuTime(info.getThreadId())));
        }
      }
      return new CpuSample(os.getProcessCpuTime(), server);
    }

    /** S3Proxy's CPU since {@code before}; a pool thread that ended in between is not counted. */
    long serverSince(CpuSample before) {
      long sum = 0;
      for (Map.Entry<Long, Long> e : server.entrySet()) {
        sum += Math.max(0, e.getValue() - before.server.getOrDefault(e.getKey(), 0L));
      }
      return sum;
    }
  }
}
