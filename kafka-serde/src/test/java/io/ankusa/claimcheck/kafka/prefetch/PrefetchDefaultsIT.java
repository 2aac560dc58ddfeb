package io.ankusa.claimcheck.kafka.prefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.kafka.ClaimCheckClientSupplier;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerde;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Prefetch at default settings (issue 8): {@code max.poll.records} 500, 1 MiB values, {@code
 * claimcheck.cache.max.bytes} 64 MiB and {@code claimcheck.prefetch.max.bytes} left at their
 * defaults, so a poll's claims (500 MiB) are about eight times the cache. On the real broker, S3
 * server and fault proxy, through the real deserializer — a plain {@link PrefetchingConsumer} and a
 * Streams application configured only by {@code default.client.supplier} — every value arrives
 * byte-identical and the store is asked exactly once per ref. {@code
 * -DargLine=-Dprefetch.defaults.refs=N} sets the number of refs (default 500).
 */
class PrefetchDefaultsIT {

  private static final int REFS = Integer.getInteger("prefetch.defaults.refs", 500);
  private static final int VALUE_BYTES = 1 << 20;
  private static final String TOPIC = "prefetch-defaults-" + UUID.randomUUID();

  private static EmbeddedKafka kafka;
  private static FaultProxy proxy;
  private static Map<String, Object> claimCheck;

  @BeforeAll
  static void servers() throws Exception {
    kafka = EmbeddedKafka.shared();
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("defaults-" + new Random().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
    claimCheck = s3.claimCheckConfig("s3://" + bucket, proxy.endpoint());
    claimCheck.put("claimcheck.tenant", "acme");
    kafka.createTopic(TOPIC, 1);
    produce();
  }

  @AfterAll
  static void stopProxy() {
    proxy.close();
  }

  /** Value {@code i}: 1 MiB, distinct per index (its index, then seeded noise). */
  private static byte[] value(int i) {
    byte[] b = new byte[VALUE_BYTES];
    new Random(i).nextBytes(b);
    ByteBuffer.wrap(b).putInt(i);
    return b;
  }

  private static void produce() throws Exception {
    List<ClaimRef> refs = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
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
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG,
                5),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (int i = 0; i < refs.size(); i++) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(
                TOPIC, 0, ByteBuffer.allocate(4).putInt(i).array(), RefCodec.encode(refs.get(i)));
        ClaimCheckHeaders.mark(r.headers(), false);
        producer.send(r);
      }
      producer.flush();
    }
  }

  @Test
  void aPollOfFiveHundredOneMebibyteRefsIsFetchedOnceEachThroughAPlainConsumer() {
    proxy.resetCounts();
    Map<String, Object> c =
        new HashMap<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                50 << 20)); // max.poll.records: default (500)
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    int seen = 0;
    int largestPoll = 0;
    long start = System.nanoTime();
    PrefetchStats stats;
    try (PrefetchingConsumer consumer =
            new PrefetchingConsumer(
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                claimCheck);
        ClaimCheckDeserializer<byte[]> deserializer =
            new ClaimCheckDeserializer<>(new ByteArrayDeserializer())) {
      deserializer.configure(claimCheck, false);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long until = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (seen < REFS && System.nanoTime() < until) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
        largestPoll = Math.max(largestPoll, records.count());
        for (ConsumerRecord<byte[], byte[]> r : records) {
          byte[] got = deserializer.deserialize(r.topic(), r.headers(), r.value());
          int i = ByteBuffer.wrap(r.key()).getInt();
          assertThat(got).as("value %d", i).isEqualTo(value(i));
          seen++;
        }
      }
      stats = consumer.stats();
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertThat(seen).isEqualTo(REFS);
    assertThat(proxy.requestCount("GET")).as("store GETs for %d refs", REFS).isEqualTo(REFS);
    assertThat(stats.started()).isEqualTo(REFS);
    assertThat(stats.failed() + stats.skipped() + stats.unread()).isZero();
    System.out.printf(
        "PREFETCH DEFAULTS IT (plain): %d refs x 1 MiB, largest poll %d," + " %d GETs, %d ms, %s%n",
        REFS, largestPoll, proxy.requestCount("GET"), ms, stats);
  }

  @Test
  void theSameThroughAStreamsAppConfiguredByDefaultClientSupplier() throws Exception {
    proxy.resetCounts();
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "defaults-" + UUID.randomUUID());
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("defaults").toString());
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 500);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_BYTES_CONFIG), 50 << 20);
    props.put(
        StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, ClaimCheckClientSupplier.class.getName());
    props.putAll(claimCheck);

    AtomicInteger identical = new AtomicInteger();
    AtomicReference<String> mismatch = new AtomicReference<>();
    ClaimCheckSerde<byte[]> serde = new ClaimCheckSerde<>(Serdes.ByteArray());
    serde.configure(claimCheck, false);
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(TOPIC, Consumed.with(Serdes.ByteArray(), serde))
        .foreach(
            (k, v) -> {
              int i = ByteBuffer.wrap(k).getInt();
              if (java.util.Arrays.equals(v, value(i))) {
                identical.incrementAndGet();
              } else {
                mismatch.compareAndSet(null, "value " + i + " differs");
              }
            });
    long start = System.nanoTime();
    try (KafkaStreams streams = new KafkaStreams(builder.build(), props)) {
      streams.start();
      long until = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (identical.get() + (mismatch.get() == null ? 0 : 1) < REFS
          && System.nanoTime() < until) {
        Thread.sleep(100);
      }
    } finally {
      serde.close();
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertThat(mismatch.get()).isNull();
    assertThat(identical.get()).isEqualTo(REFS);
    assertThat(proxy.requestCount("GET")).as("store GETs for %d refs", REFS).isEqualTo(REFS);
    System.out.printf(
        "PREFETCH DEFAULTS IT (streams): %d refs x 1 MiB, %d GETs, %d ms%n",
        REFS, proxy.requestCount("GET"), ms);
  }
}
