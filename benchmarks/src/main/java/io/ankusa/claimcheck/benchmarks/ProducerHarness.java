package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.kafka.producer.ClaimCheckProducer;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Pipelined versus one-at-a-time check-in, end to end: an embedded KRaft broker, an embedded S3
 * server (S3Proxy) behind a fault proxy that holds every PUT for the given latency. Each pass sends
 * N keyed values (8 keys, a 4-partition topic) and flushes; it is timed from the first send to the
 * end of {@code flush()} (every record acknowledged). Baseline: a {@code KafkaProducer} whose
 * {@code value.serializer} is {@link ClaimCheckSerializer} (one synchronous upload per send).
 * Pipelined: {@link ClaimCheckProducer} with {@code claimcheck.write.max.inflight} 16, and again
 * with {@code claimcheck.write.pack.max.claims} 8. Every pass counts the store's PUTs. Each round
 * runs all three with the latency and without it, and once end to end: the pipelined producer
 * sending while a {@link PrefetchingConsumer} (with the same latency on GETs) reads and redeems
 * every value on another thread, timed until the last value is redeemed and checked. With {@code
 * store=memory} the claims go to an in-memory store whose PUTs (and GETs) take the latency, without
 * HTTP: what the library itself costs, apart from this one-JVM S3 rig's CPU.
 *
 * <pre>
 *   mvn -B -pl benchmarks -am package -DskipTests
 *   java -Xmx6g -cp benchmarks/target/benchmarks.jar io.ankusa.claimcheck.benchmarks.ProducerHarness \
 *       [records=500] [latencyMs=20] [valueBytes=307200] [rounds=1] [store=s3|memory]
 * </pre>
 */
public final class ProducerHarness {

  private final int records;
  private final byte[][] values;
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final FaultProxy proxy; // null for the memory store
  private final MemoryStore memory; // null for S3
  private final Map<String, Object> claimCheck = new HashMap<>();
  private long putsBefore;

  private ProducerHarness(int records, int valueBytes, boolean inMemory) {
    this.records = records;
    this.values = new byte[records][];
    for (int i = 0; i < records; i++) {
      values[i] = new byte[valueBytes];
      new Random(i).nextBytes(values[i]);
      ByteBuffer.wrap(values[i]).putInt(i);
    }
    claimCheck.put("claimcheck.read.max.inflight", 64);
    if (inMemory) {
      String name = "producer-harness-" + UUID.randomUUID();
      this.memory = MemoryStores.named(name);
      this.proxy = null;
      claimCheck.put("claimcheck.stores", "faulty:" + name);
      return;
    }
    this.memory = null;
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("producer-" + new Random().nextInt(1_000_000));
    this.proxy = FaultProxy.inFrontOf(s3);
    claimCheck.putAll(s3.claimCheckConfig("s3://" + bucket, proxy.endpoint()));
  }

  public static void main(String[] args) throws Exception {
    int records = arg(args, 0, 500);
    int latencyMs = arg(args, 1, 20);
    int valueBytes = arg(args, 2, 300 * 1024);
    int rounds = arg(args, 3, 1);
    boolean inMemory = args.length > 4 && args[4].equals("memory");
    ProducerHarness h = new ProducerHarness(records, valueBytes, inMemory);
    System.out.printf(
        (inMemory
                ? "memory store (latency spent in the store, no HTTP)"
                : "S3 (S3Proxy behind a WireMock fault proxy)")
            + ": %d values of %d B, 8 keys, "
            + "4 partitions, %d round(s); %d cores, Java %s%n",
        records,
        valueBytes,
        rounds,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    try {
      h.pass("warm-up (pipelined, 0 ms)", Mode.PIPELINED, Duration.ZERO);
      for (int round = 1; round <= rounds; round++) {
        Duration lat = Duration.ofMillis(latencyMs);
        long base = h.pass("serializer, " + latencyMs + " ms PUT", Mode.SERIALIZER, lat);
        long pipe = h.pass("producer,   " + latencyMs + " ms PUT", Mode.PIPELINED, lat);
        long pack = h.pass("producer+8-packs, " + latencyMs + " ms PUT", Mode.PACKED, lat);
        long base0 = h.pass("serializer, 0 ms", Mode.SERIALIZER, Duration.ZERO);
        long pipe0 = h.pass("producer,   0 ms", Mode.PIPELINED, Duration.ZERO);
        long pack0 = h.pass("producer+8-packs, 0 ms", Mode.PACKED, Duration.ZERO);
        long e2e = h.endToEnd(Mode.PIPELINED, lat);
        long e2eBase = h.endToEnd(Mode.SERIALIZER, lat);
        System.out.printf(
            "round %d: %d ms PUT: serializer %.0f ms, producer %.0f ms (%.1fx), "
                + "packed %.0f ms (%.1fx) | 0 ms: serializer %.0f ms, producer %.0f ms (%.1fx), "
                + "packed %.0f ms (%.1fx) | end to end (%d ms PUT and GET, prefetching consumer): "
                + "serializer %.0f ms, producer %.0f ms (%.1fx)%n",
            round,
            latencyMs,
            base / 1e6,
            pipe / 1e6,
            (double) base / pipe,
            pack / 1e6,
            (double) base / pack,
            base0 / 1e6,
            pipe0 / 1e6,
            (double) base0 / pipe0,
            pack0 / 1e6,
            (double) base0 / pack0,
            latencyMs,
            e2eBase / 1e6,
            e2e / 1e6,
            (double) e2eBase / e2e);
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

  private enum Mode {
    SERIALIZER,
    PIPELINED,
    PACKED
  }

  private static int arg(String[] args, int i, int otherwise) {
    return args.length > i ? Integer.parseInt(args[i]) : otherwise;
  }

  private Producer<String, byte[]> producer(Mode mode) {
    Map<String, Object> p = new HashMap<>(claimCheck);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 << 20);
    if (mode == Mode.SERIALIZER) {
      ClaimCheckSerializer<byte[]> values = new ClaimCheckSerializer<>();
      values.configure(p, false);
      p.keySet().removeIf(ClaimCheckConfig::isClaimCheckKey);
      return new KafkaProducer<>(p, new StringSerializer(), values);
    }
    p.put(ClaimCheckProducer.WRITE_MAX_INFLIGHT, 16);
    if (mode == Mode.PACKED) {
      p.put(ClaimCheckProducer.WRITE_PACK_MAX_CLAIMS, 8);
    }
    return new ClaimCheckProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  private String topic() {
    String t = "producer-" + UUID.randomUUID();
    kafka.createTopic(t, 4);
    try {
      // Outside the clock: a produce right after creation met NotLeaderOrFollower on this
      // one-broker rig, and the idempotent producer then retried OutOfOrderSequence until its
      // delivery timeout; a second for the new partitions' leadership to settle avoids it.
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return t;
  }

  private void latency(Duration latency, boolean gets) {
    if (memory != null) {
      memory.clearFaults();
      if (!latency.isZero()) {
        memory.latency(MemoryStore.Op.PUT, latency);
        if (gets) {
          memory.latency(MemoryStore.Op.GET, latency);
        }
      }
      putsBefore = memory.count(MemoryStore.Op.PUT);
      return;
    }
    proxy.clear();
    if (!latency.isZero()) {
      proxy.inject(Fault.hang(latency), "PUT");
      if (gets) {
        proxy.inject(Fault.hang(latency), "GET");
      }
    }
    proxy.resetCounts();
  }

  /** Sends every value and flushes; prints and returns the nanoseconds taken. */
  private long pass(String name, Mode mode, Duration latency) throws Exception {
    String topic = topic();
    try (Producer<String, byte[]> producer = producer(mode)) {
      producer.partitionsFor(topic); // metadata before the clock starts
      latency(latency, false);
      long took = send(producer, topic);
      long puts =
          memory != null
              ? memory.count(MemoryStore.Op.PUT) - putsBefore
              : proxy.requestCount("PUT");
      System.out.printf(
          "  %-32s %7.0f ms  %.3f PUTs/record%n", name, took / 1e6, (double) puts / records);
      return took;
    }
  }

  private long send(Producer<String, byte[]> producer, String topic) throws Exception {
    long start = System.nanoTime();
    List<Future<RecordMetadata>> acks = new ArrayList<>(records);
    for (int i = 0; i < records; i++) {
      acks.add(producer.send(new ProducerRecord<>(topic, "key-" + i % 8, values[i])));
    }
    producer.flush();
    long took = System.nanoTime() - start;
    for (Future<RecordMetadata> f : acks) {
      f.get(); // every record acknowledged
    }
    return took;
  }

  /**
   * Sends with {@code mode} while a prefetching consumer reads and redeems on another thread;
   * returns the nanoseconds from the first send to the last value redeemed and checked.
   */
  private long endToEnd(Mode mode, Duration latency) throws Exception {
    String topic = topic();
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, records);
    c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 50 << 20);
    KafkaConsumer<byte[], byte[]> kc =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    kc.assign(tps);
    kc.seekToBeginning(tps);
    tps.forEach(kc::position);
    long[] doneAt = new long[1];
    Throwable[] failed = new Throwable[1];
    try (Producer<String, byte[]> producer = producer(mode);
        PrefetchingConsumer consumer = new PrefetchingConsumer(kc, claimCheck);
        ClaimCheck redeemer = ClaimCheck.open(claimCheck)) {
      producer.partitionsFor(topic);
      latency(latency, true);
      Thread reader =
          new Thread(
              () -> {
                try {
                  int seen = 0;
                  while (seen < records) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                      if (r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) == null) {
                        throw new AssertionError("an unmarked record");
                      }
                      byte[] v =
                          redeemer
                              .redeem(
                                  RefCodec.decode(r.value()),
                                  redeemer.ticker().read() + Duration.ofSeconds(60).toNanos())
                              .join();
                      if (!Arrays.equals(v, values[ByteBuffer.wrap(v).getInt()])) {
                        throw new AssertionError("wrong bytes at offset " + r.offset());
                      }
                      seen++;
                    }
                  }
                  doneAt[0] = System.nanoTime();
                } catch (Throwable t) {
                  failed[0] = t;
                }
              },
              "e2e-reader");
      long start = System.nanoTime();
      reader.start();
      send(producer, topic);
      reader.join();
      if (failed[0] != null) {
        throw new AssertionError("end to end failed", failed[0]);
      }
      long took = doneAt[0] - start;
      System.out.printf(
          "  %-32s %7.0f ms%n", "end to end, " + mode.name().toLowerCase(), took / 1e6);
      return took;
    }
  }
}
