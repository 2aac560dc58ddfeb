package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Plain versus prefetching consumption of one batch of refs, end to end: an embedded KRaft broker,
 * an embedded S3 server (S3Proxy) behind a fault proxy that holds every GET for the given latency,
 * {@code claimcheck.read.max.inflight} 64. Plain polls with a {@code KafkaConsumer} and redeems
 * each record one after the other (what a deserializer does); prefetch polls through a {@link
 * PrefetchingConsumer} and then redeems the same way. Each pass opens fresh claim-check handles, so
 * it starts with an empty cache. Each round also runs both without injected latency, the floor this
 * one-JVM setup (broker, S3 server, proxy and client on the same cores) costs per request. With
 * {@code store=memory} the claims live in an in-memory store whose GETs take the latency (no HTTP
 * at all): what the library itself costs.
 *
 * <pre>
 *   mvn -B -pl benchmarks -am package -DskipTests
 *   java -cp benchmarks/target/benchmarks.jar io.ankusa.claimcheck.benchmarks.PrefetchHarness \
 *       [refs=500] [latencyMs=20] [valueBytes=4096] [rounds=3] [store=s3|memory]
 * </pre>
 */
public final class PrefetchHarness {

  private final int refs;
  private final int valueBytes;
  private final EmbeddedKafka kafka;
  private final FaultProxy proxy; // null for the memory store
  private final MemoryStore memory; // null for S3
  private final Map<String, Object> config = new HashMap<>();
  private final TopicPartition tp = new TopicPartition("prefetch-" + UUID.randomUUID(), 0);

  private PrefetchHarness(int refs, int valueBytes, boolean inMemory) {
    this.refs = refs;
    this.valueBytes = valueBytes;
    this.kafka = EmbeddedKafka.shared();
    kafka.createTopic(tp.topic(), 1);
    config.put("claimcheck.read.max.inflight", 64);
    if (inMemory) {
      String name = "prefetch-harness-" + UUID.randomUUID();
      this.memory = MemoryStores.named(name);
      this.proxy = null;
      config.put("claimcheck.stores", "faulty:" + name);
      return;
    }
    this.memory = null;
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("prefetch-" + new Random().nextInt(1_000_000));
    this.proxy = FaultProxy.inFrontOf(s3);
    config.putAll(s3.claimCheckConfig("s3://" + bucket, proxy.endpoint()));
  }

  public static void main(String[] args) throws Exception {
    int refs = arg(args, 0, 500);
    int latencyMs = arg(args, 1, 20);
    int valueBytes = arg(args, 2, 4096);
    int rounds = arg(args, 3, 3);
    boolean inMemory = args.length > 4 && args[4].equals("memory");
    PrefetchHarness h = new PrefetchHarness(refs, valueBytes, inMemory);
    try {
      h.produce();
      System.out.printf(
          "%s store: %d refs of %d B, read.max.inflight 64, %d rounds%n",
          inMemory ? "memory" : "S3 (S3Proxy behind a WireMock fault proxy)",
          refs,
          valueBytes,
          rounds);
      for (int round = 1; round <= rounds; round++) {
        long floorPlain = h.pass(false, Duration.ZERO);
        long floorPrefetch = h.pass(true, Duration.ZERO);
        long plain = h.pass(false, Duration.ofMillis(latencyMs));
        long prefetch = h.pass(true, Duration.ofMillis(latencyMs));
        System.out.printf(
            "round %d: no latency: plain %6.0f ms, prefetch %5.0f ms | %d ms GET latency: "
                + "plain %6.0f ms, prefetch %5.0f ms, ratio %4.1fx%n",
            round,
            floorPlain / 1e6,
            floorPrefetch / 1e6,
            latencyMs,
            plain / 1e6,
            prefetch / 1e6,
            (double) plain / prefetch);
      }
    } finally {
      if (h.proxy != null) {
        h.proxy.close();
        EmbeddedS3.shared().close();
      }
      EmbeddedKafka.shared().close();
    }
    System.exit(0);
  }

  private static int arg(String[] args, int i, int otherwise) {
    return args.length > i ? Integer.parseInt(args[i]) : otherwise;
  }

  private byte[] value(int i) {
    byte[] b = new byte[valueBytes];
    new Random(i).nextBytes(b);
    return b;
  }

  private void produce() throws Exception {
    List<ClaimRef> checkedIn = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (ClaimCheck producerSide = ClaimCheck.open(config)) {
      List<Future<ClaimRef>> futures = new ArrayList<>();
      for (int i = 0; i < refs; i++) {
        int n = i;
        futures.add(pool.submit(() -> producerSide.checkIn(value(n))));
      }
      for (Future<ClaimRef> f : futures) {
        checkedIn.add(f.get());
      }
    } finally {
      pool.shutdown();
    }
    Map<String, Object> p =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.LINGER_MS_CONFIG,
            5);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (ClaimRef ref : checkedIn) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(tp.topic(), tp.partition(), null, RefCodec.encode(ref));
        ClaimCheckHeaders.mark(r.headers(), false);
        producer.send(r);
      }
      producer.flush();
    }
  }

  /**
   * Consumes the whole batch once, plain or prefetching, with {@code latency} on every GET; checks
   * every value and the store GET count; returns the nanoseconds from the first poll to the last
   * redeem.
   */
  private long pass(boolean prefetching, Duration latency) {
    long getsBefore = 0;
    if (memory != null) {
      memory.clearFaults();
      if (!latency.isZero()) {
        memory.latency(MemoryStore.Op.GET, latency);
      }
      getsBefore = memory.count(MemoryStore.Op.GET);
    } else {
      if (latency.isZero()) {
        proxy.clear();
      } else {
        proxy.inject(Fault.hang(latency), "GET");
      }
      proxy.resetCounts();
    }
    Map<String, Object> c =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
            refs,
            ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
            50 << 20);
    KafkaConsumer<byte[], byte[]> kafkaConsumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    kafkaConsumer.assign(List.of(tp));
    kafkaConsumer.seekToBeginning(List.of(tp));
    kafkaConsumer.position(tp); // resolve the offset before the clock starts
    long took;
    try (Consumer<byte[], byte[]> consumer =
            prefetching ? new PrefetchingConsumer(kafkaConsumer, config) : kafkaConsumer;
        ClaimCheck deserializer = ClaimCheck.open(config)) {
      long start = System.nanoTime();
      int seen = 0;
      while (seen < refs) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          byte[] bytes =
              deserializer
                  .redeem(
                      RefCodec.decode(r.value()),
                      deserializer.ticker().read() + Duration.ofSeconds(60).toNanos())
                  .join();
          if (!Arrays.equals(bytes, value((int) r.offset()))) {
            throw new AssertionError("wrong bytes at offset " + r.offset());
          }
          seen++;
        }
      }
      took = System.nanoTime() - start;
    }
    long gets =
        memory != null ? memory.count(MemoryStore.Op.GET) - getsBefore : proxy.requestCount("GET");
    if (gets != refs) {
      throw new AssertionError(
          (prefetching ? "prefetch" : "plain")
              + " pass: "
              + gets
              + " store GETs for "
              + refs
              + " distinct refs");
    }
    return took;
  }
}
