package io.ankusa.claimcheck.kafka.prefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A batch of refs consumed from a real broker and redeemed from a real S3 server whose GETs take 20
 * ms (a hang in the fault proxy), two ways: plain (redeem each record one after the other, as a
 * deserializer does) and prefetching ({@link PrefetchingConsumer}, then the same redeems). Asserts
 * correctness only — every value byte-identical, and the prefetching pass asks the store once per
 * ref — and prints both times and their ratio. {@code -DargLine=-Dprefetch.refs=500} sets the batch
 * size (default 200).
 */
class PrefetchingConsumerIT {

  private static final int REFS = Integer.getInteger("prefetch.refs", 200);
  private static final int VALUE_BYTES = 4096;
  private static final Duration LATENCY = Duration.ofMillis(20);
  private static final TopicPartition TP = new TopicPartition("prefetch-" + UUID.randomUUID(), 0);

  private static EmbeddedKafka kafka;
  private static FaultProxy proxy;
  private static Map<String, Object> claimCheck;

  @BeforeAll
  static void servers() throws Exception {
    kafka = EmbeddedKafka.shared();
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("prefetch-" + new Random().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
    claimCheck = s3.claimCheckConfig("s3://" + bucket, proxy.endpoint());
    claimCheck.put("claimcheck.tenant", "acme");
    kafka.createTopic(TP.topic(), 1);
    produce();
  }

  @AfterAll
  static void stopProxy() {
    proxy.close();
  }

  private static byte[] value(int i) {
    byte[] b = new byte[VALUE_BYTES];
    new Random(i).nextBytes(b);
    return b;
  }

  /** Checks REFS values in (8 at a time) and sends their refs, marked, in order. */
  private static void produce() throws Exception {
    List<ClaimRef> refs = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (ClaimCheck producerSide = ClaimCheck.open(claimCheck)) {
      List<Future<ClaimRef>> futures = new ArrayList<>();
      for (int i = 0; i < REFS; i++) {
        int n = i;
        futures.add(pool.submit(() -> producerSide.checkIn(value(n))));
      }
      for (Future<ClaimRef> f : futures) {
        refs.add(f.get());
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
      for (ClaimRef ref : refs) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(TP.topic(), TP.partition(), null, RefCodec.encode(ref));
        ClaimCheckHeaders.mark(r.headers(), false);
        producer.send(r);
      }
      producer.flush();
    }
  }

  private static KafkaConsumer<byte[], byte[]> kafkaConsumer() {
    Map<String, Object> c =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
            REFS,
            ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
            50 << 20);
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    consumer.assign(List.of(TP));
    consumer.seekToBeginning(List.of(TP));
    return consumer;
  }

  /**
   * Polls every record and redeems each one after the other through {@code redeemer} (what a
   * deserializer does), checking each value; returns the nanoseconds it took.
   */
  private static long consumeAll(Consumer<byte[], byte[]> consumer, ClaimCheck redeemer) {
    long start = System.nanoTime();
    int seen = 0;
    while (seen < REFS) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        assertThat(ClaimCheckHeaders.carriesRef(r.headers(), r.value(), false)).isTrue();
        byte[] bytes =
            redeemer
                .redeem(
                    RefCodec.decode(r.value()),
                    redeemer.ticker().read() + Duration.ofSeconds(60).toNanos())
                .join();
        assertThat(bytes).as("record at offset %d", r.offset()).isEqualTo(value((int) r.offset()));
        seen++;
      }
    }
    return System.nanoTime() - start;
  }

  @Test
  void aPrefetchedBatchIsRedeemedByteIdenticalWithOneStoreReadPerRef() {
    proxy.inject(Fault.hang(LATENCY), "GET");
    try {
      // Each pass opens and closes its own handles, so each starts with a fresh reader and cache.
      proxy.resetCounts();
      long plain;
      try (KafkaConsumer<byte[], byte[]> consumer = kafkaConsumer();
          ClaimCheck deserializer = ClaimCheck.open(claimCheck)) {
        plain = consumeAll(consumer, deserializer);
      }
      assertThat(proxy.requestCount("GET")).isEqualTo(REFS);

      proxy.resetCounts();
      long prefetch;
      PrefetchStats stats;
      try (PrefetchingConsumer consumer = new PrefetchingConsumer(kafkaConsumer(), claimCheck);
          ClaimCheck deserializer = ClaimCheck.open(claimCheck)) {
        prefetch = consumeAll(consumer, deserializer);
        stats = consumer.stats();
      }
      assertThat(proxy.requestCount("GET"))
          .as("store GETs for %d distinct refs", REFS)
          .isEqualTo(REFS);
      assertThat(stats.started()).isEqualTo(REFS);
      assertThat(stats.failed() + stats.skipped() + stats.malformed()).isZero();

      System.out.printf(
          "PREFETCH IT: %d refs of %d B, %d ms store GET latency, read.max.inflight 64:"
              + " plain %.0f ms, prefetch %.0f ms, ratio %.1fx%n",
          REFS,
          VALUE_BYTES,
          LATENCY.toMillis(),
          plain / 1e6,
          prefetch / 1e6,
          (double) plain / prefetch);
    } finally {
      proxy.clear();
    }
  }
}
