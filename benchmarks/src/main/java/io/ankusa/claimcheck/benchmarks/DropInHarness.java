package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The drop-in serde side by side, in one JVM against one S3Proxy on loopback (no broker): each pass
 * checks N distinct values in with a fresh serializer, one call after the other, then redeems each
 * once, in order, with a fresh deserializer, taking the SHA-256 of each value after its call and
 * timing only the calls. Candidates: bakdata's large-message-serde ({@code peer}, its own class
 * loader, sync {@code S3Client}), ours at defaults ({@code ours}), ours without inline calls
 * ({@code ours-async}: {@code claimcheck.s3.inline.calls=false}, the path before them), ours with
 * envelope encryption ({@code ours-enc}: {@code claimcheck.encryption.kek=local:} a fresh key file,
 * every other setting as {@code ours}; its enc/plain ratios against {@code ours} are printed per
 * cell when both run), and raw SDK PUT/GET loops over the same values ({@code raw-sync}: {@code
 * S3Client} + Apache 5; {@code raw-async}: {@code S3AsyncClient} + Netty, {@code join()} per call).
 *
 * <p>Before the first cell the young generation is touched once ({@link HeapWarmUp}: the first pass
 * through a fresh 4 GiB heap's eden page-faults on every page). Per cell (size × count × threads):
 * eight warm-up passes of every candidate ({@code -Ddropin.warmups}: on 2 cores four left the JIT
 * compiling through the measured rounds, BENCHMARKS.md §17), then {@code rounds} rounds in balanced
 * order (forward, reversed, forward, …: A B | A B, B A, A B); a ratio is taken within a round and
 * the median of rounds is reported. With T threads each phase is T threads, each with its own fresh
 * serializer/deserializer over every T-th value, timed by the phase's wall clock from the moment
 * every thread's serde is configured to the last call's end: opening and closing a serde stay
 * outside, as building a raw client does (each round's line shows, in brackets, the milliseconds
 * they took with starting the threads). Client CPU per MiB: every thread's CPU but S3Proxy's, the
 * JIT's and the GC's ({@link ThreadCpu}), over the same window; the S3 server's (S3Proxy's threads)
 * beside it, the work our requests cost a server that, on this rig, shares the client's cores.
 * Objects are deleted after every pass (S3Proxy keeps them in memory).
 *
 * <pre>
 *   java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar \
 *       io.ankusa.claimcheck.benchmarks.DropInHarness [262144:896,1048576:224] [rounds=3]
 *       [threads=1,16] [candidates=all|regex]
 *   -Dclaimcheck.<key>=<value> passes a config key to all of ours
 *   -Ddropin.payload=random (default: incompressible) | half (half random, half repeated text)
 *   -Ddropin.link.mbps=R every client reaches S3Proxy through a {@link PacedLink} delivering R MB/s
 *       per connection (a remote store's rate; default: loopback, no link)
 *   -Ddropin.warmups=N warm-up passes of every candidate per cell (default 8): on 2 cores the
 *       JIT (C2) still compiles S3Proxy's and the SDK's code for the first minute or two
 *
 *   encryption on vs off only:
 *   java -Ddropin.warmups=4 ... DropInHarness 262144:896,1048576:224 5 1 'ours|ours-enc'
 * </pre>
 */
public final class DropInHarness {

  /** Warm-up passes of every candidate per cell unless {@code -Ddropin.warmups} says otherwise. */
  private static final int DEFAULT_WARMUPS = 8;

  private static final String BUCKET = "dropin";
  private static final String TOPIC = "dropin";
  private static final int THRESHOLD = 1024;

  /** One library or raw client: a pass is both phases; each returns {nanos, client CPU nanos}. */
  private interface Candidate {
    String name();

    /**
     * Runs the serialize phase's slice {@code from, from + step, …}, its calls between {@code
     * ready} and {@code done} (opening and closing a serde outside them); returns call nanos.
     */
    long serialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) throws Exception;

    /** Runs the deserialize phase's slice, as {@link #serialize}; returns call nanos. */
    long deserialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) throws Exception;

    default void before() {}

    default void after() {}
  }

  private final EmbeddedS3 s3;
  private final URI endpoint;
  private final S3Client admin;
  private byte[][] values;
  private byte[][] sha;
  private int pass;
  private Path keyFile;

  private DropInHarness(EmbeddedS3 s3, URI endpoint) {
    this.s3 = s3;
    this.endpoint = endpoint;
    s3.createBucket(BUCKET);
    this.admin = sync();
  }

  public static void main(String[] args) throws Exception {
    String cells = args.length > 0 ? args[0] : "262144:896,1048576:224";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int[] threads =
        Arrays.stream((args.length > 2 ? args[2] : "1,16").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    String only = args.length > 3 ? args[3] : "all";
    EmbeddedS3 s3 = EmbeddedS3.start();
    String linkRate = System.getProperty("dropin.link.mbps");
    PacedLink link =
        linkRate == null ? null : PacedLink.to(s3.endpoint(), Double.parseDouble(linkRate));
    int status = 0;
    try {
      DropInHarness h = new DropInHarness(s3, link == null ? s3.endpoint() : link.endpoint());
      if (link != null) {
        System.out.println(
            "every client reaches S3Proxy through a link of "
                + linkRate
                + " MB/s per connection (server to client)");
      }
      System.out.printf(
          "DropInHarness: cells %s, %d rounds (+%d warm-up passes), threads %s, %d cores, load %s,"
              + " JVM %s; only the calls timed, SHA-256 of each value after its call%n",
          cells,
          rounds,
          Integer.getInteger("dropin.warmups", DEFAULT_WARMUPS),
          Arrays.toString(threads),
          Runtime.getRuntime().availableProcessors(),
          String.format(
              "%.2f",
              java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                  .getSystemLoadAverage()),
          System.getProperty("java.version"));
      System.out.println(HeapWarmUp.touch());
      boolean first = true;
      for (String cell : cells.split(",")) {
        String[] sc = cell.split(":");
        for (int t : threads) {
          h.cell(Integer.parseInt(sc[0]), Integer.parseInt(sc[1]), t, rounds, only, first ? 2 : 1);
          first = false;
        }
      }
    } catch (Throwable t) {
      System.out.println("FAILED: " + t);
      t.printStackTrace(System.out);
      status = 1;
    } finally {
      if (link != null) {
        link.close();
      }
      s3.close();
    }
    System.exit(status);
  }

  private void cell(int size, int n, int threads, int rounds, String only, int warmUps)
      throws Exception {
    values = new byte[n][size];
    sha = new byte[n][];
    boolean half = "half".equals(System.getProperty("dropin.payload", "random"));
    byte[] text = "claim check payload, compressible half; ".getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < n; i++) {
      new Random(31L * i + size).nextBytes(values[i]);
      if (half) {
        for (int j = size / 2; j < size; j++) {
          values[i][j] = text[j % text.length];
        }
      }
      sha[i] = SerdeDriver.digest(values[i]);
    }
    List<Candidate> all = candidates();
    all.removeIf(c -> !only.equals("all") && !c.name().matches(only));
    String label = String.format("%,d B x %d, %d thread(s)", size, n, threads);
    System.out.println("== " + label);
    Map<String, List<double[]>> rows = new LinkedHashMap<>(); // per round: MiB/s and CPU ms/MiB
    all.forEach(c -> rows.put(c.name(), new ArrayList<>()));
    int passes =
        Math.max(
            warmUps, Integer.getInteger("dropin.warmups", DEFAULT_WARMUPS)); // -Ddropin.warmups=N
    for (int round = 1 - passes; round <= rounds; round++) {
      List<Candidate> order = new ArrayList<>(all);
      if (round % 2 == 0 && round > 0) {
        java.util.Collections.reverse(order);
      }
      StringBuilder line = new StringBuilder(round <= 0 ? "warm-up:" : "round " + round + ":");
      for (Candidate c : order) {
        double[] f = pass(c, size, n, threads);
        if (round > 0) {
          rows.get(c.name()).add(f);
        }
        line.append(String.format(" %s %.0f/%.0f [%.0f/%.0f]", c.name(), f[0], f[1], f[6], f[7]));
      }
      System.out.println(
          line + "  (MiB/s deserialize/serialize [ms opening, closing, starting threads])");
    }
    report(label, rows, rounds);
    encryptionRatios(label, rows.get("ours"), rows.get("ours-enc"));
  }

  /** Encryption on vs off, same settings otherwise: per-round ratios of ours-enc to ours. */
  private static void encryptionRatios(String label, List<double[]> plain, List<double[]> enc) {
    if (plain == null || enc == null) {
      return;
    }
    System.out.printf(
        "ENC/PLAIN %s: deserialize %s, serialize %s; client CPU ms/MiB deserialize %.2f -> %.2f,"
            + " serialize %.2f -> %.2f%n",
        label,
        ratio(ratios(enc, plain, 0)),
        ratio(ratios(enc, plain, 1)),
        median(plain, 2),
        median(enc, 2),
        median(plain, 3),
        median(enc, 3));
  }

  /**
   * One pass: {MiB/s deser, MiB/s ser, client CPU ms/MiB deser, client CPU ms/MiB ser, S3 server
   * CPU ms/MiB deser, S3 server CPU ms/MiB ser, ms outside the window deser, the same ser}.
   */
  private double[] pass(Candidate c, int size, int n, int threads) throws Exception {
    pass++;
    c.before();
    try {
      long[] ser = phase(threads, c::serialize);
      long[] deser = phase(threads, c::deserialize);
      double mib = (double) size * n / (1 << 20);
      return new double[] {
        mib / (deser[0] / 1e9),
        mib / (ser[0] / 1e9),
        deser[1] / 1e6 / mib,
        ser[1] / 1e6 / mib,
        deser[2] / 1e6 / mib,
        ser[2] / 1e6 / mib,
        deser[3] / 1e6,
        ser[3] / 1e6
      };
    } finally {
      c.after();
      deleteAll();
    }
  }

  private interface Slice {
    long run(int from, int step, CyclicBarrier ready, CyclicBarrier done) throws Exception;
  }

  /**
   * Runs one phase on {@code threads} threads; returns {nanos, client CPU nanos, S3 server CPU
   * nanos, nanos spent opening and closing serdes outside the window}. The window opens when every
   * thread is ready to call (its serde configured) and closes when the last one has made its last
   * call, before any serde closes: a library's open and close count no more than the raw loops'
   * client, which {@link Candidate#before} builds. With one thread, nanos are the calls' own.
   */
  private static long[] phase(int threads, Slice slice) throws Exception {
    // Barrier actions run on the thread that trips the barrier; the barrier orders them before
    // every other thread's return from await, so the window's state needs no other guard.
    long[] window = new long[2];
    ThreadCpu[] cpu = new ThreadCpu[1];
    ThreadCpu.Split[] split = new ThreadCpu.Split[1];
    CyclicBarrier ready =
        new CyclicBarrier(
            threads,
            () -> {
              cpu[0] = ThreadCpu.start();
              window[0] = System.nanoTime();
            });
    CyclicBarrier done =
        new CyclicBarrier(
            threads,
            () -> {
              window[1] = System.nanoTime();
              split[0] = cpu[0].stop();
            });
    long outerStart = System.nanoTime();
    long nanos;
    if (threads == 1) {
      nanos = slice.run(0, 1, ready, done);
    } else {
      AtomicReference<Throwable> failed = new AtomicReference<>();
      List<Thread> ts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int from = t;
        Thread th =
            new Thread(
                () -> {
                  try {
                    slice.run(from, threads, ready, done);
                  } catch (Throwable e) {
                    failed.compareAndSet(null, e);
                    ready.reset();
                    done.reset();
                  }
                },
                "dropin-" + t);
        ts.add(th);
        th.start();
      }
      for (Thread th : ts) {
        th.join();
      }
      if (failed.get() != null) {
        throw new IllegalStateException("a phase thread failed", failed.get());
      }
      nanos = window[1] - window[0];
    }
    long outside = System.nanoTime() - outerStart - (window[1] - window[0]);
    return new long[] {nanos, split[0].client(), split[0].of(ThreadCpu.Group.S3_SERVER), outside};
  }

  private void report(String label, Map<String, List<double[]>> rows, int rounds) {
    List<double[]> peer = rows.get("peer");
    System.out.println("-- " + label + ": median of " + rounds + " rounds (ratio per round)");
    System.out.println(
        "| candidate | deserialize MiB/s | vs peer | vs fastest raw | client CPU ms/MiB"
            + " | serialize MiB/s | vs peer | client CPU ms/MiB | S3 server CPU ms/MiB"
            + " deserialize / serialize |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (Map.Entry<String, List<double[]>> e : rows.entrySet()) {
      List<double[]> r = e.getValue();
      StringBuilder vsRaw = new StringBuilder();
      double[] rawRatio = new double[r.size()];
      for (int i = 0; i < r.size(); i++) {
        double best = 0;
        for (Map.Entry<String, List<double[]>> o : rows.entrySet()) {
          if (o.getKey().startsWith("raw-")) {
            best = Math.max(best, o.getValue().get(i)[0]);
          }
        }
        rawRatio[i] = best == 0 ? Double.NaN : r.get(i)[0] / best;
      }
      vsRaw.append(ratio(rawRatio));
      System.out.printf(
          "| %s | %.0f | %s | %s | %.2f | %.0f | %s | %.2f | %.2f / %.2f |%n",
          e.getKey(),
          median(r, 0),
          peer == null ? "-" : ratio(ratios(r, peer, 0)),
          vsRaw,
          median(r, 2),
          median(r, 1),
          peer == null ? "-" : ratio(ratios(r, peer, 1)),
          median(r, 3),
          median(r, 4),
          median(r, 5));
    }
  }

  private static double[] ratios(List<double[]> a, List<double[]> b, int col) {
    double[] r = new double[a.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = a.get(i)[col] / b.get(i)[col];
    }
    return r;
  }

  private static String ratio(double[] perRound) {
    double[] s = perRound.clone();
    Arrays.sort(s);
    double m = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    StringBuilder sb = new StringBuilder(String.format("%.2fx (", m));
    for (int i = 0; i < perRound.length; i++) {
      sb.append(i == 0 ? "" : " ").append(String.format("%.2f", perRound[i]));
    }
    return sb.append(')').toString();
  }

  private static double median(List<double[]> rows, int col) {
    double[] c = rows.stream().mapToDouble(r -> r[col]).sorted().toArray();
    return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
  }

  private List<Candidate> candidates() throws URISyntaxException {
    List<Candidate> list = new ArrayList<>();
    list.add(peer());
    list.add(ours("ours", Map.of()));
    list.add(ours("ours-async", Map.of("claimcheck.s3.inline.calls", "false")));
    list.add(ours("ours-enc", Map.of("claimcheck.encryption.kek", "local:" + keyFile())));
    list.add(rawSync());
    list.add(rawAsync());
    return list;
  }

  /** A fresh {@code local:} key file, deleted when the JVM exits. */
  private Path keyFile() {
    if (keyFile == null) {
      try {
        keyFile = Files.createTempFile("dropin", ".key");
        Files.writeString(keyFile, LocalKekProvider.newKeyFile());
        keyFile.toFile().deleteOnExit();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return keyFile;
  }

  private Map<String, Object> oursConfig(Map<String, String> extra) {
    Map<String, Object> m = s3.claimCheckConfig("s3://" + BUCKET + "/ours", endpoint);
    m.put("claimcheck.threshold.bytes", THRESHOLD);
    System.getProperties().stringPropertyNames().stream()
        .filter(ClaimCheckConfig::isClaimCheckKey)
        .forEach(k -> m.put(k, System.getProperty(k)));
    m.putAll(extra);
    return m;
  }

  private Candidate ours(String name, Map<String, String> extra) {
    Map<String, Object> config = oursConfig(extra);
    return new Candidate() {
      Object[] records;

      @Override
      public String name() {
        return name;
      }

      @Override
      public void before() {
        records = new Object[values.length];
      }

      @Override
      public long serialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) {
        return SerdeDriver.serialize(
            ClaimCheckSerializer.class.getName(),
            config,
            TOPIC,
            values,
            records,
            from,
            step,
            ready,
            done);
      }

      @Override
      public long deserialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) {
        return SerdeDriver.deserialize(
            ClaimCheckDeserializer.class.getName(),
            config,
            TOPIC,
            records,
            sha,
            from,
            step,
            ready,
            done);
      }
    };
  }

  private Candidate peer() throws URISyntaxException {
    Map<String, Object> config = new HashMap<>();
    config.put("large.message.base.path", "s3://" + BUCKET + "/peer/");
    config.put("large.message.max.byte.size", THRESHOLD);
    config.put("large.message.s3.endpoint", endpoint.toString());
    config.put("large.message.s3.region", s3.region());
    config.put("large.message.s3.access.key", s3.accessKey());
    config.put("large.message.s3.secret.key", s3.secretKey());
    config.put("large.message.s3.path.style.access", "true");
    config.put(
        "large.message.value.serde", "org.apache.kafka.common.serialization.Serdes$ByteArraySerde");
    PeerClassLoader loader = PeerClassLoader.over(peerRuntime());
    Method ser;
    Method deser;
    try {
      Class<?> d = Class.forName(SerdeDriver.class.getName(), true, loader);
      ser = find(d, "serialize");
      deser = find(d, "deserialize");
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return new Candidate() {
      Object[] records;

      @Override
      public String name() {
        return "peer";
      }

      @Override
      public void before() {
        records = new Object[values.length];
      }

      @Override
      public long serialize(int from, int step, CyclicBarrier ready, CyclicBarrier done)
          throws Exception {
        return (long)
            invoke(
                ser,
                PeerRig.PEER_SERIALIZER,
                config,
                TOPIC,
                values,
                records,
                from,
                step,
                ready,
                done);
      }

      @Override
      public long deserialize(int from, int step, CyclicBarrier ready, CyclicBarrier done)
          throws Exception {
        return (long)
            invoke(
                deser,
                PeerRig.PEER_DESERIALIZER,
                config,
                TOPIC,
                records,
                sha,
                from,
                step,
                ready,
                done);
      }
    };
  }

  private Candidate rawSync() {
    return new Candidate() {
      S3Client client;

      @Override
      public String name() {
        return "raw-sync";
      }

      @Override
      public void before() {
        client = sync();
      }

      @Override
      public void after() {
        client.close();
      }

      @Override
      public long serialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) {
        SerdeDriver.await(ready);
        long took = 0;
        for (int i = from; i < values.length; i += step) {
          String key = "raw/" + pass + "/" + i;
          byte[] v = values[i];
          long t0 = System.nanoTime();
          client.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(v));
          took += System.nanoTime() - t0;
        }
        SerdeDriver.await(done);
        return took;
      }

      @Override
      public long deserialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) {
        SerdeDriver.await(ready);
        long took = 0;
        for (int i = from; i < values.length; i += step) {
          String key = "raw/" + pass + "/" + i;
          long t0 = System.nanoTime();
          byte[] v =
              client
                  .getObject(b -> b.bucket(BUCKET).key(key), ResponseTransformer.toBytes())
                  .asByteArrayUnsafe();
          took += System.nanoTime() - t0;
          check(i, v);
        }
        SerdeDriver.await(done);
        return took;
      }
    };
  }

  private Candidate rawAsync() {
    return new Candidate() {
      S3AsyncClient client;

      @Override
      public String name() {
        return "raw-async";
      }

      @Override
      public void before() {
        client =
            S3AsyncClient.builder()
                .httpClient(NettyNioAsyncHttpClient.builder().maxConcurrency(128).build())
                .endpointOverride(endpoint)
                .region(Region.of(s3.region()))
                .forcePathStyle(true)
                .credentialsProvider(credentials())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
      }

      @Override
      public void after() {
        client.close();
      }

      @Override
      public long serialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) {
        SerdeDriver.await(ready);
        long took = 0;
        for (int i = from; i < values.length; i += step) {
          String key = "raw/" + pass + "/" + i;
          byte[] v = values[i];
          long t0 = System.nanoTime();
          client.putObject(b -> b.bucket(BUCKET).key(key), AsyncRequestBody.fromBytes(v)).join();
          took += System.nanoTime() - t0;
        }
        SerdeDriver.await(done);
        return took;
      }

      @Override
      public long deserialize(int from, int step, CyclicBarrier ready, CyclicBarrier done) {
        SerdeDriver.await(ready);
        long took = 0;
        for (int i = from; i < values.length; i += step) {
          String key = "raw/" + pass + "/" + i;
          long t0 = System.nanoTime();
          byte[] v =
              client
                  .getObject(b -> b.bucket(BUCKET).key(key), AsyncResponseTransformer.toBytes())
                  .join()
                  .asByteArrayUnsafe();
          took += System.nanoTime() - t0;
          check(i, v);
        }
        SerdeDriver.await(done);
        return took;
      }
    };
  }

  private void check(int i, byte[] v) {
    if (!Arrays.equals(SerdeDriver.digest(v), sha[i])) {
      throw new AssertionError("raw: WRONG BYTES for object " + i);
    }
  }

  private S3Client sync() {
    return RawClients.sync(s3, endpoint);
  }

  private StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(s3.accessKey(), s3.secretKey()));
  }

  /** Deletes every object of the bucket: S3Proxy holds them in memory. */
  private void deleteAll() {
    for (; ; ) {
      ListObjectsV2Response page = admin.listObjectsV2(b -> b.bucket(BUCKET).maxKeys(1000));
      if (page.contents().isEmpty()) {
        return;
      }
      List<ObjectIdentifier> ids = new ArrayList<>();
      for (S3Object o : page.contents()) {
        ids.add(ObjectIdentifier.builder().key(o.key()).build());
      }
      admin.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.objects(ids).quiet(true)));
    }
  }

  private static Method find(Class<?> c, String name) {
    for (Method m : c.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new IllegalStateException("no " + name + " in " + c);
  }

  private static Object invoke(Method m, Object... args) throws Exception {
    try {
      return m.invoke(null, args);
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof Exception x) {
        throw x;
      }
      if (t instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /** See {@code PeerHarness}: {@code -Dpeer.runtime=<dir>}, else {@code peer-runtime/}. */
  private static Path peerRuntime() throws URISyntaxException {
    String dir = System.getProperty("peer.runtime");
    if (dir != null) {
      return Path.of(dir);
    }
    Path jar =
        Path.of(DropInHarness.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return jar.resolveSibling("peer-runtime");
  }
}
