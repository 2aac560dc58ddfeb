package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.kafka.producer.ClaimCheckProducer;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Produce then consume through a real KRaft broker and a real S3 server, claim check vs inline
 * records with {@code max.message.bytes} raised, per value size; one harness thread.
 *
 * <p>For each size {@code S x N}: the inline producer sends N values of S bytes to a topic whose
 * {@code max.message.bytes} (and the producer's {@code max.request.size}, the consumer's {@code
 * fetch.max.bytes} and {@code max.partition.fetch.bytes}) admit them; the claim-check producer
 * ({@code ClaimCheckSerializer}, default settings: every value of 256 KiB or more goes to S3) sends
 * the same values to a topic with default settings. Then three consumers read from the beginning,
 * each with a fresh reader and an empty cache: inline ({@code ByteArrayDeserializer}), ours ({@code
 * ClaimCheckDeserializer} inside the {@code KafkaConsumer}: the drop-in path), and ours + prefetch
 * ({@link PrefetchingConsumer}, then the same deserializer). Every value is checked byte for byte
 * against its key; every prefetched record must be a ref and prefetched. End to end = N x S /
 * (produce time + consume time); ratios are ours over inline, same run.
 *
 * <p>{@code producer=pipelined}: ours produces with {@link ClaimCheckProducer} instead (uploads run
 * concurrently, {@code claimcheck.write.max.inflight} at once, default 16; value serializer {@code
 * ByteArraySerializer}); the records it writes are the same refs with the same marker, so the
 * consume passes and their checks are unchanged.
 *
 * <p>{@code proxy} puts the WireMock fault proxy between the clients and S3Proxy (pass-through);
 * {@code getLatencyMs=N} does too and holds every GET N ms there (a remote store's first byte).
 *
 * <p>Ours consumes with the default {@code max.poll.records} (500): the prefetch window ({@code
 * claimcheck.prefetch.max.bytes}) bounds what is fetched ahead, whatever the poll. {@code fitPolls}
 * restores the earlier rig's 80 % of {@code claimcheck.cache.max.bytes} (64 MiB) / S records per
 * poll (12 at 4 MiB), which drains the window at every poll.
 *
 * <pre>
 *   java -Xms6g -Xmx6g -cp benchmarks/target/benchmarks.jar \
 *       io.ankusa.claimcheck.benchmarks.EndToEndHarness \
 *       [256K:2000 1M:500 4M:125] [proxy] [getLatencyMs=0] [warmup=0.25] [rounds=1] [fitPolls]
 *       [producer=serializer|pipelined]
 *       [png=docs/bench/throughput-vs-size.png]
 * </pre>
 *
 * <p>{@code warmup=F}: before the timed runs, every size also runs untimed with F x its count.
 * {@code rounds=N}: the sizes run in turn N times; the median and range of each ratio over rounds
 * is printed, and the plot draws each size's median round. {@code -Dclaimcheck.<key>=<value>}
 * passes a config key to ours (both producer and consumers). Each pass prints its CPU split by
 * thread group ({@link ThreadCpu}); with {@code --add-exports
 * java.management/sun.management=ALL-UNNAMED} the JVM's GC and JIT threads are split out too.
 */
public final class EndToEndHarness {

  private static final long CACHE_BYTES = 64L << 20;
  private static final String BYTES_SERIALIZER =
      "org.apache.kafka.common.serialization.ByteArraySerializer";
  private static final String BYTES_DESERIALIZER =
      "org.apache.kafka.common.serialization.ByteArrayDeserializer";

  /** One value size and how many values of it. */
  record Size(int bytes, int count) {
    String label() {
      return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }

    double mebibytes() {
      return (double) bytes * count / (1 << 20);
    }
  }

  /** Nanoseconds (wall), process CPU nanoseconds and their split by thread group of one pass. */
  record Timed(long nanos, long cpuNanos, ThreadCpu.Split split) {
    long clientCpuNanos() {
      return split.client();
    }

    double mibPerSec(Size s) {
      return s.mebibytes() / (nanos / 1e9);
    }
  }

  /** One size's passes. */
  record Result(
      Size size,
      Timed inlineProduce,
      Timed inlineConsume,
      Timed oursProduce,
      Timed oursConsume,
      Timed prefetchConsume) {
    double e2e(Timed produce, Timed consume) {
      return size.mebibytes() / ((produce.nanos() + consume.nanos()) / 1e9);
    }

    double inline() {
      return e2e(inlineProduce, inlineConsume);
    }

    double ours() {
      return e2e(oursProduce, oursConsume);
    }

    double prefetch() {
      return e2e(oursProduce, prefetchConsume);
    }
  }

  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final Admin admin;
  private final Map<String, Object> claimcheck = new LinkedHashMap<>();
  private final FaultProxy proxy; // null when talking to S3Proxy directly
  private final Values values = new Values();
  private boolean fitPolls; // max.poll.records sized to the cache (the old rig), else the default
  private boolean pipelined; // ours produces with ClaimCheckProducer, else ClaimCheckSerializer

  private EndToEndHarness(boolean throughProxy, int getLatencyMs) {
    this.admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("e2e-" + UUID.randomUUID().toString().substring(0, 8));
    this.proxy = throughProxy ? FaultProxy.inFrontOf(s3) : null;
    if (getLatencyMs > 0) {
      proxy.inject(Fault.hang(Duration.ofMillis(getLatencyMs)), "GET");
    }
    claimcheck.putAll(
        s3.claimCheckConfig("s3://" + bucket, throughProxy ? proxy.endpoint() : s3.endpoint()));
    // -Dclaimcheck.<key>=<value>: a config key for ours (e.g. claimcheck.s3.http.client=crt)
    for (String k : System.getProperties().stringPropertyNames()) {
      if (ClaimCheckConfig.isClaimCheckKey(k)) {
        claimcheck.put(k, System.getProperty(k));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    List<Size> sizes = new ArrayList<>();
    boolean throughProxy = false;
    boolean fitPolls = false;
    boolean pipelined = false;
    int getLatencyMs = 0;
    double warmupFraction = 0.25;
    int rounds = 1;
    Path png = Path.of("docs/bench/throughput-vs-size.png");
    for (String a : args) {
      if (a.equals("proxy")) {
        throughProxy = true;
      } else if (a.startsWith("getLatencyMs=")) {
        getLatencyMs = Integer.parseInt(a.substring("getLatencyMs=".length()));
        throughProxy = getLatencyMs > 0 || throughProxy;
      } else if (a.equals("fitPolls")) {
        fitPolls = true;
      } else if (a.equals("producer=pipelined") || a.equals("producer=serializer")) {
        pipelined = a.equals("producer=pipelined");
      } else if (a.startsWith("rounds=")) {
        rounds = Integer.parseInt(a.substring("rounds=".length()));
      } else if (a.startsWith("warmup=")) {
        warmupFraction = Double.parseDouble(a.substring("warmup=".length()));
      } else if (a.startsWith("png=")) {
        png = Path.of(a.substring(4));
      } else {
        String[] p = a.split(":");
        sizes.add(new Size(parseBytes(p[0]), Integer.parseInt(p[1])));
      }
    }
    if (sizes.isEmpty()) {
      sizes = List.of(new Size(256 << 10, 2000), new Size(1 << 20, 500), new Size(4 << 20, 125));
    }
    EndToEndHarness h = new EndToEndHarness(throughProxy, getLatencyMs);
    h.fitPolls = fitPolls;
    h.pipelined = pipelined;
    List<Result> results = new ArrayList<>();
    String via;
    try {
      via =
          !throughProxy
              ? "S3Proxy direct"
              : "S3Proxy behind the WireMock fault proxy, "
                  + getLatencyMs
                  + " ms added to every GET";
      System.out.printf("S3: %s; load average at start: %s%n", via, loadAverage());
      System.out.printf(
          "claim-check keys beyond the store's: %s; max.poll.records of ours: %s%n",
          extraKeys(h.claimcheck), fitPolls ? "80 % of the cache / S (fitPolls)" : "500 (default)");
      System.out.printf(
          "ours produces with %s%n",
          pipelined
              ? "ClaimCheckProducer (producer=pipelined)"
              : "KafkaProducer + ClaimCheckSerializer");
      long warm = System.nanoTime();
      // JIT, connections, topic metadata; not reported. A short warm-up left the JIT compiling
      // through the first timed passes (up to 10 CPU s per GiB of them), so each size warms.
      h.run(new Size(256 << 10, 200));
      for (Size s : sizes) {
        if (warmupFraction > 0) {
          h.run(new Size(s.bytes(), Math.max(1, (int) (s.count() * warmupFraction))));
        }
      }
      System.out.printf(
          "warm-up (256 KiB x 200, then each size x %.2f, every pass) took %.1f s%n",
          warmupFraction, (System.nanoTime() - warm) / 1e9);
      for (int round = 0; round < rounds; round++) {
        for (Size s : sizes) {
          Result r = h.run(s);
          results.add(r);
          System.out.printf("round %d: ", round);
          print(r);
        }
      }
    } finally {
      h.close();
    }
    summary(results);
    clientSummary(results);
    List<Result> median = medians(sizes, results);
    EndToEndPlot.write(
        png,
        median,
        via
            + (pipelined ? "; ours produces pipelined" : "")
            + (rounds > 1 ? "; each size's median round of " + rounds : "")
            + "; load average at end: "
            + loadAverage());
    System.out.println("plot: " + png.toAbsolutePath());
    System.exit(0);
  }

  private Result run(Size s) throws Exception {
    String inlineTopic = topic("inline", s.bytes() + (1 << 20));
    String oursTopic = topic("ours", 0);
    Map<String, Object> inlineProducer = producer(BYTES_SERIALIZER);
    inlineProducer.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, s.bytes() + (1 << 20));
    Map<String, Object> oursProducer =
        producer(pipelined ? BYTES_SERIALIZER : ClaimCheckSerializer.class.getName());
    oursProducer.putAll(claimcheck);
    Function<Map<String, Object>, Producer<byte[], byte[]>> openOurs =
        pipelined ? ClaimCheckProducer::new : KafkaProducer::new;
    Timed inP =
        timed(
            s.label() + " produce inline",
            m -> Passes.produce(inlineProducer, KafkaProducer::new, inlineTopic, s, values, m));
    Timed ourP =
        timed(
            s.label() + (pipelined ? " produce ours pipelined" : " produce ours"),
            m -> Passes.produce(oursProducer, openOurs, oursTopic, s, values, m));

    Map<String, Object> inlineConsumer = consumer(BYTES_DESERIALIZER);
    inlineConsumer.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
    inlineConsumer.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 20);
    int pollRecords = fitPolls ? (int) Math.max(1, CACHE_BYTES * 8 / 10 / s.bytes()) : 500;
    Map<String, Object> oursConsumer = consumer(ClaimCheckDeserializer.class.getName());
    oursConsumer.putAll(claimcheck);
    oursConsumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, pollRecords);
    Map<String, Object> prefetchConsumer = consumer(BYTES_DESERIALIZER);
    prefetchConsumer.putAll(claimcheck);
    prefetchConsumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, pollRecords);

    Timed inC =
        timed(
            s.label() + " consume inline",
            m -> Passes.consume(inlineConsumer, inlineTopic, s, values, null, m));
    Timed ourC =
        timed(
            s.label() + " consume ours",
            m -> Passes.consume(oursConsumer, oursTopic, s, values, null, m));
    Timed preC =
        timed(
            s.label() + " consume prefetch",
            m -> Passes.consume(prefetchConsumer, oursTopic, s, values, claimcheck, m));
    if (proxy != null) {
      System.out.printf(
          "  store requests through the proxy so far: %d PUT, %d GET%n",
          proxy.requestCount("PUT"), proxy.requestCount("GET"));
    }
    return new Result(s, inP, inC, ourP, ourC, preC);
  }

  private interface Pass {
    long run(Passes.Meter meter) throws Exception;
  }

  /**
   * Runs {@code pass}, measuring CPU by thread group from its clock's start to its stop (before its
   * clients close), and prints its wall-clock bounds (epoch ms) so a recording can be cut.
   */
  private static Timed timed(String name, Pass pass) throws Exception {
    ThreadCpu[] cpu = new ThreadCpu[1];
    ThreadCpu.Split[] split = new ThreadCpu.Split[1];
    long[] bounds = new long[2];
    long nanos =
        pass.run(
            new Passes.Meter() {
              @Override
              public void begin() {
                bounds[0] = System.currentTimeMillis();
                cpu[0] = ThreadCpu.start();
              }

              @Override
              public void end() {
                split[0] = cpu[0].stop();
                bounds[1] = System.currentTimeMillis();
              }
            });
    System.out.printf("  pass %s: %d..%d%n", name, bounds[0], bounds[1]);
    printSplit(split[0]);
    return new Timed(nanos, split[0].processNanos(), split[0]);
  }

  /** One pass's CPU by group, and the thread names (digits folded) above 1 % of it. */
  private static void printSplit(ThreadCpu.Split sp) {
    StringBuilder b = new StringBuilder("    cpu s:");
    for (ThreadCpu.Group g : ThreadCpu.Group.values()) {
      b.append(
          String.format(
              Locale.ROOT, " %s %.2f;", g.name().toLowerCase(Locale.ROOT), sp.of(g) / 1e9));
    }
    b.append(
        String.format(
            Locale.ROOT,
            " client %.2f of process %.2f%n    threads:",
            sp.client() / 1e9,
            sp.processNanos() / 1e9));
    sp.byName().entrySet().stream()
        .filter(e -> e.getValue() > sp.processNanos() / 100)
        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
        .forEach(
            e ->
                b.append(
                    String.format(
                        Locale.ROOT,
                        " [%s] %s %.2f;",
                        ThreadCpu.group(e.getKey()).name().toLowerCase(Locale.ROOT),
                        e.getKey(),
                        e.getValue() / 1e9)));
    System.out.println(b);
  }

  private static Map<String, Object> extraKeys(Map<String, Object> keys) {
    Map<String, Object> extra = new LinkedHashMap<>();
    keys.forEach(
        (k, v) -> {
          if (!k.startsWith("claimcheck.s3.") || k.equals("claimcheck.s3.http.client")) {
            if (!k.equals("claimcheck.stores")) {
              extra.put(k, v);
            }
          }
        });
    return extra;
  }

  private String topic(String what, int maxMessageBytes) throws Exception {
    String name = what + "-" + UUID.randomUUID().toString().substring(0, 8);
    NewTopic t = new NewTopic(name, 1, (short) 1);
    if (maxMessageBytes > 0) {
      t.configs(Map.of("max.message.bytes", Integer.toString(maxMessageBytes)));
    }
    admin.createTopics(List.of(t)).all().get(60, TimeUnit.SECONDS);
    return name;
  }

  private Map<String, Object> producer(String valueSerializer) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, BYTES_SERIALIZER);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, valueSerializer);
    return p;
  }

  private Map<String, Object> consumer(String valueDeserializer) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, BYTES_DESERIALIZER);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, valueDeserializer);
    return c;
  }

  private void close() {
    admin.close(Duration.ofSeconds(5));
    if (proxy != null) {
      proxy.close();
    }
    EmbeddedS3.shared().close();
    kafka.close();
  }

  private static void print(Result r) {
    Size s = r.size();
    System.out.printf(
        Locale.ROOT,
        "%s x %d (%.0f MiB): produce inline %.1f s, ours %.1f s | consume inline %.1f s,"
            + " ours %.1f s, ours+prefetch %.1f s | CPU s: %.1f %.1f | %.1f %.1f %.1f | load %s%n",
        s.label(),
        s.count(),
        s.mebibytes(),
        r.inlineProduce().nanos() / 1e9,
        r.oursProduce().nanos() / 1e9,
        r.inlineConsume().nanos() / 1e9,
        r.oursConsume().nanos() / 1e9,
        r.prefetchConsume().nanos() / 1e9,
        r.inlineProduce().cpuNanos() / 1e9,
        r.oursProduce().cpuNanos() / 1e9,
        r.inlineConsume().cpuNanos() / 1e9,
        r.oursConsume().cpuNanos() / 1e9,
        r.prefetchConsume().cpuNanos() / 1e9,
        loadAverage());
  }

  private static void summary(List<Result> results) {
    System.out.println();
    System.out.println(
        "| size x count | inline e2e MiB/s | ours | ours + prefetch |"
            + " ours / inline | ours + prefetch / inline | produce ours / inline |"
            + " consume ours / inline |"
            + " consume ours + prefetch / inline |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (Result r : results) {
      Size s = r.size();
      System.out.printf(
          Locale.ROOT,
          "| %s x %,d | %.0f | %.0f | %.0f | %.2fx | %.2fx | %.2fx | %.2fx | %.2fx |%n",
          s.label(),
          s.count(),
          r.inline(),
          r.ours(),
          r.prefetch(),
          r.ours() / r.inline(),
          r.prefetch() / r.inline(),
          r.oursProduce().mibPerSec(s) / r.inlineProduce().mibPerSec(s),
          r.oursConsume().mibPerSec(s) / r.inlineConsume().mibPerSec(s),
          r.prefetchConsume().mibPerSec(s) / r.inlineConsume().mibPerSec(s));
    }
    System.out.println();
    System.out.println(
        "Process CPU seconds per GiB moved (the JVM holds broker, S3 server and"
            + " clients; from each pass's clock start to its stop), and ours / inline:");
    System.out.println(
        "| size | inline produce + consume | ours | ours + prefetch |"
            + " ours / inline | ours + prefetch / inline | produce ours / inline |"
            + " consume ours / inline |"
            + " consume ours + prefetch / inline |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (Result r : results) {
      double gib = r.size().mebibytes() / 1024 * 1e9;
      double in = (r.inlineProduce().cpuNanos() + r.inlineConsume().cpuNanos()) / gib;
      double ours = (r.oursProduce().cpuNanos() + r.oursConsume().cpuNanos()) / gib;
      double pre = (r.oursProduce().cpuNanos() + r.prefetchConsume().cpuNanos()) / gib;
      System.out.printf(
          Locale.ROOT,
          "| %s | %.1f | %.1f | %.1f | %.2fx | %.2fx | %.2fx | %.2fx |" + " %.2fx |%n",
          r.size().label(),
          in,
          ours,
          pre,
          ours / in,
          pre / in,
          (double) r.oursProduce().cpuNanos() / r.inlineProduce().cpuNanos(),
          (double) r.oursConsume().cpuNanos() / r.inlineConsume().cpuNanos(),
          (double) r.prefetchConsume().cpuNanos() / r.inlineConsume().cpuNanos());
    }
  }

  /**
   * Client-side CPU per GiB (application thread, Kafka client I/O threads, claim check + SDK
   * threads: what a client machine pays when broker and S3 server run elsewhere), ours / inline,
   * and every pass's split by group.
   */
  private static void clientSummary(List<Result> results) {
    System.out.println();
    System.out.println(
        "Client-side CPU seconds per GiB moved (application + Kafka client I/O +"
            + " claim check/SDK threads; broker, S3 server and JVM-internal threads excluded):");
    System.out.println(
        "| size | inline produce + consume | ours | ours + prefetch | ours / inline |"
            + " ours + prefetch / inline | produce ours / inline | consume ours / inline |"
            + " consume ours + prefetch / inline |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (Result r : results) {
      double gib = r.size().mebibytes() / 1024 * 1e9;
      double in = (r.inlineProduce().clientCpuNanos() + r.inlineConsume().clientCpuNanos()) / gib;
      double ours = (r.oursProduce().clientCpuNanos() + r.oursConsume().clientCpuNanos()) / gib;
      double pre = (r.oursProduce().clientCpuNanos() + r.prefetchConsume().clientCpuNanos()) / gib;
      System.out.printf(
          Locale.ROOT,
          "| %s | %.2f | %.2f | %.2f | %.2fx | %.2fx | %.2fx | %.2fx |" + " %.2fx |%n",
          r.size().label(),
          in,
          ours,
          pre,
          ours / in,
          pre / in,
          (double) r.oursProduce().clientCpuNanos() / r.inlineProduce().clientCpuNanos(),
          (double) r.oursConsume().clientCpuNanos() / r.inlineConsume().clientCpuNanos(),
          (double) r.prefetchConsume().clientCpuNanos() / r.inlineConsume().clientCpuNanos());
    }
    System.out.println();
    System.out.println("CPU seconds per GiB by thread group, per pass:");
    StringBuilder head = new StringBuilder("| size | pass |");
    StringBuilder rule = new StringBuilder("|---|---|");
    for (ThreadCpu.Group g : ThreadCpu.Group.values()) {
      head.append(' ').append(g.label).append(" |");
      rule.append("---|");
    }
    System.out.println(head.append(" client | process |"));
    System.out.println(rule.append("---|---|"));
    for (Result r : results) {
      double gib = r.size().mebibytes() / 1024 * 1e9;
      Map<String, Timed> passes = new LinkedHashMap<>();
      passes.put("produce inline", r.inlineProduce());
      passes.put("produce ours", r.oursProduce());
      passes.put("consume inline", r.inlineConsume());
      passes.put("consume ours", r.oursConsume());
      passes.put("consume ours + prefetch", r.prefetchConsume());
      passes.forEach(
          (name, t) -> {
            StringBuilder row = new StringBuilder("| " + r.size().label() + " | " + name + " |");
            for (ThreadCpu.Group g : ThreadCpu.Group.values()) {
              row.append(String.format(Locale.ROOT, " %.2f |", t.split().of(g) / gib));
            }
            row.append(
                String.format(
                    Locale.ROOT, " %.2f | %.2f |", t.clientCpuNanos() / gib, t.cpuNanos() / gib));
            System.out.println(row);
          });
    }
  }

  /**
   * Per size, the median and range over rounds of each ratio; returns each size's median round by
   * end-to-end ours + prefetch / inline (what the plot draws).
   */
  private static List<Result> medians(List<Size> sizes, List<Result> results) {
    List<Result> out = new ArrayList<>();
    System.out.println();
    System.out.println(
        "Over rounds (rounds run the sizes in turn): median [min - max] of each ratio,"
            + " ours / inline");
    System.out.println(
        "| size x count | rounds | e2e ours | e2e ours + prefetch |"
            + " produce | consume ours | consume ours + prefetch | client CPU/GiB consume ours |"
            + " client CPU/GiB consume ours + prefetch | client CPU/GiB e2e ours + prefetch |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (Size s : sizes) {
      List<Result> rs = results.stream().filter(r -> r.size().equals(s)).toList();
      List<java.util.function.ToDoubleFunction<Result>> ratios =
          List.of(
              r -> r.ours() / r.inline(),
              r -> r.prefetch() / r.inline(),
              r -> r.oursProduce().mibPerSec(s) / r.inlineProduce().mibPerSec(s),
              r -> r.oursConsume().mibPerSec(s) / r.inlineConsume().mibPerSec(s),
              r -> r.prefetchConsume().mibPerSec(s) / r.inlineConsume().mibPerSec(s),
              r -> (double) r.oursConsume().clientCpuNanos() / r.inlineConsume().clientCpuNanos(),
              r ->
                  (double) r.prefetchConsume().clientCpuNanos()
                      / r.inlineConsume().clientCpuNanos(),
              r ->
                  (double) (r.oursProduce().clientCpuNanos() + r.prefetchConsume().clientCpuNanos())
                      / (r.inlineProduce().clientCpuNanos() + r.inlineConsume().clientCpuNanos()));
      StringBuilder row =
          new StringBuilder(
              String.format(Locale.ROOT, "| %s x %,d | %d |", s.label(), s.count(), rs.size()));
      for (java.util.function.ToDoubleFunction<Result> f : ratios) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        row.append(
            String.format(
                Locale.ROOT, " %.2fx [%.2f - %.2f] |", v[v.length / 2], v[0], v[v.length - 1]));
      }
      System.out.println(row);
      List<Result> byPrefetch = new ArrayList<>(rs);
      byPrefetch.sort(java.util.Comparator.comparingDouble(r -> r.prefetch() / r.inline()));
      out.add(byPrefetch.get(byPrefetch.size() / 2));
    }
    return out;
  }

  static String loadAverage() {
    try {
      return new String(java.nio.file.Files.readAllBytes(Path.of("/proc/loadavg"))).trim();
    } catch (java.io.IOException e) {
      return Double.toString(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  private static int parseBytes(String s) {
    String u = s.toUpperCase(Locale.ROOT);
    if (u.endsWith("K")) {
      return Integer.parseInt(u.substring(0, u.length() - 1)) << 10;
    }
    if (u.endsWith("M")) {
      return Integer.parseInt(u.substring(0, u.length() - 1)) << 20;
    }
    return Integer.parseInt(u);
  }
}
