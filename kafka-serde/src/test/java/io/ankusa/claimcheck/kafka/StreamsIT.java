package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka Streams with ClaimCheckSerde as the default value serde and per operator. */
class StreamsIT {

  private static final int MIB = 1 << 20;
  private static FaultProxy proxy;
  private static String bucket;

  @TempDir Path stateDir;
  private KafkaStreams streams;

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("streams"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterEach
  void stopStreams() {
    if (streams != null) {
      streams.close(Duration.ofSeconds(10));
    }
    proxy.clear();
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private Properties streamsConfig(Map<String, Object> cc) {
    Properties p = new Properties();
    p.putAll(cc);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, Servers.unique("app"));
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        ClaimCheckDeserializationExceptionHandler.class.getName());
    p.put(
        StreamsConfig.mainConsumerPrefix("interceptor.classes"),
        ClaimCheckConsumerInterceptor.class.getName());
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
    return p;
  }

  private static byte[] reversed(byte[] v) {
    byte[] r = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      r[i] = v[v.length - 1 - i];
    }
    return r;
  }

  private void start(StreamsBuilder builder, Properties config) {
    streams = new KafkaStreams(builder.build(config), config);
    streams.setUncaughtExceptionHandler(e -> StreamThreadExceptionResponse.REPLACE_THREAD);
  }

  @Test
  void mapValuesStateStoreAndRepartitionKeepEveryValueByteIdentical() {
    String in = Servers.unique("in");
    String out = Servers.unique("out");
    Servers.kafka().createTopic(in, 2);
    Servers.kafka().createTopic(out, 1);
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    Properties config = streamsConfig(cc);
    ClaimCheckSerde<byte[]> perOperator = new ClaimCheckSerde<>(Serdes.ByteArray());
    perOperator.configure(cc, false);

    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, byte[]>stream(in)
        .mapValues(StreamsIT::reversed)
        .selectKey((k, v) -> k + "-r")
        .groupByKey() // repartition topic: refs, through the default serde
        .reduce((older, newer) -> newer, Materialized.as("latest")) // state store + changelog
        .toStream()
        .to(out, Produced.with(Serdes.String(), perOperator));
    start(builder, config);
    streams.start();

    int[] sizes = {1, 100, 262_143, 262_144, 300_000, 2 * MIB, 20 * MIB, 17, 500_000};
    proxy.resetCounts();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      for (int i = 0; i < sizes.length; i++) {
        producer.send(new ProducerRecord<>(in, "k" + i, Servers.payload(sizes[i], 900 + i)));
      }
      producer.flush();
    }
    Map<String, byte[]> got = new HashMap<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(Servers.consumer(cc, Servers.unique("g")))) {
      consumer.subscribe(List.of(out));
      long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (got.size() < sizes.length && System.nanoTime() < end) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          got.put(r.key(), r.value());
        }
      }
    } finally {
      perOperator.close();
    }
    assertThat(got).hasSize(sizes.length);
    for (int i = 0; i < sizes.length; i++) {
      assertThat(got.get("k" + i + "-r"))
          .as("value %d (%d bytes)", i, sizes[i])
          .isEqualTo(reversed(Servers.payload(sizes[i], 900 + i)));
    }
    // Only the 5 large values reached the store: checked in by the producer, then again at each
    // hop (repartition topic, state store and its changelog, output topic) — one PUT each, or one
    // per part for a multipart upload.
    int puts = 0;
    for (int size : sizes) {
      puts += size >= 262_144 ? 4 * Servers.putRequests(size) : 0;
    }
    assertThat(proxy.requestCount("PUT")).isEqualTo(puts);
  }

  @Test
  void aStoreOutageFailsTheThreadAndTheReplacedThreadDeliversTheRecord() throws Exception {
    String in = Servers.unique("in");
    String out = Servers.unique("out");
    Servers.kafka().createTopic(in, 1);
    Servers.kafka().createTopic(out, 1);
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    cc.put("claimcheck.store.op.deadline.ms", "2000");
    byte[] big = Servers.payload(400_000, 77);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      producer.send(new ProducerRecord<>(in, "big", big)).get();
    }
    proxy.down();

    Properties config = streamsConfig(cc);
    // A store that refuses connections is retried until the read deadline (30 s by default): keep
    // each try of the thread short.
    config.put("claimcheck.read.deadline.ms", "3000");
    // A dead thread's member must expire before its replacement gets the partition back.
    config.put(StreamsConfig.mainConsumerPrefix("session.timeout.ms"), 6000);
    config.put(StreamsConfig.mainConsumerPrefix("heartbeat.interval.ms"), 1000);
    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, byte[]>stream(in).mapValues(StreamsIT::reversed).to(out);
    AtomicInteger failures = new AtomicInteger();
    AtomicReference<Throwable> last = new AtomicReference<>();
    streams = new KafkaStreams(builder.build(config), config);
    streams.setUncaughtExceptionHandler(
        e -> {
          last.set(e);
          failures.incrementAndGet();
          return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    streams.start();
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (failures.get() == 0 && System.nanoTime() < end) {
      Thread.sleep(100);
    }
    assertThat(failures.get()).as("the stream thread failed").isPositive();
    assertThat(ClaimCheckDeserializationExceptionHandler.claimFailure(last.get()).reason())
        .isEqualTo(Reason.UNAVAILABLE);

    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(Servers.consumer(cc, Servers.unique("g")))) {
      consumer.subscribe(List.of(out));
      assertThat(Servers.pollAll(consumer, 1, Duration.ofSeconds(2))).isEmpty(); // not skipped
      proxy.up();
      List<ConsumerRecord<String, byte[]>> got =
          Servers.pollAll(consumer, 1, Duration.ofSeconds(90));
      assertThat(got).hasSize(1);
      assertThat(got.get(0).key()).isEqualTo("big");
      assertThat(got.get(0).value()).isEqualTo(reversed(big));
    }
    assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
  }
}
