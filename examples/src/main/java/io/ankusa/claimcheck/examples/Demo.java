package io.ankusa.claimcheck.examples;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerde;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The demo: a producer sends values from 10 bytes to 8 MiB through {@link ClaimCheckSerializer};
 * a Kafka Streams app transforms them with {@link ClaimCheckSerde}; a consumer reads the results
 * with {@link ClaimCheckDeserializer} and checks every byte. A real KRaft broker and a real S3
 * server (S3Proxy) run in this JVM; nothing else is needed.
 */
public final class Demo {

  private static final int[] SIZES = {10, 1_000, 100_000, 300_000, 1 << 20, 3 << 20, 8 << 20};

  /** Values of this many bytes or more are checked in; smaller ones stay inline. */
  static final int THRESHOLD = 262_144;

  private Demo() {}

  /**
   * Runs both demos on one broker and one S3 server: producer -> Streams -> consumer, then the
   * Kafka Connect pipeline ({@link ConnectDemo}); exits with status 1 unless both were identical.
   */
  public static void main(String[] args) throws Exception {
    boolean ok;
    System.out.println("Starting a Kafka broker and an S3 server in this JVM...");
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedS3 s3 = EmbeddedS3.start()) {
      ok = run(kafka, s3);
      System.out.printf("%n--- Kafka Connect: a source connector and a sink connector ---%n");
      ok &= ConnectDemo.run(kafka, s3).allIdentical();
    }
    if (!ok) {
      System.exit(1);
    }
  }

  /** Runs the producer -> Streams -> consumer demo; returns whether every value was identical. */
  static boolean run() throws Exception {
    System.out.println("Starting a Kafka broker and an S3 server in this JVM...");
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedS3 s3 = EmbeddedS3.start()) {
      return run(kafka, s3);
    }
  }

  /** Runs the producer -> Streams -> consumer demo on {@code kafka} and {@code s3}. */
  static boolean run(EmbeddedKafka kafka, EmbeddedS3 s3) throws Exception {
    kafka.createTopic("demo-in", 3);
    kafka.createTopic("demo-out", 3);
    Map<String, Object> claimcheck =
        new HashMap<>(claimCheckSettings(s3, s3.createBucket("demo-claims")));
    Map<String, byte[]> sent = produce(kafka, claimcheck);
    // The serde holds an S3 client that Streams leaves open: close it after the app.
    try (ClaimCheckSerde<byte[]> serde = new ClaimCheckSerde<>();
        KafkaStreams streams = transform(kafka, claimcheck, serde)) {
      streams.start();
      int ok = consume(kafka, claimcheck, sent);
      System.out.printf("%n%d of %d values came back byte-identical through producer -> Streams "
          + "-> consumer; values under 256 KiB stayed inline, larger ones travelled as refs.%n",
          ok, sent.size());
      return ok == sent.size();
    }
  }

  /** The demos' claim-check settings: S3 store {@code bucket} on {@code s3}, zstd, 256 KiB. */
  static Map<String, String> claimCheckSettings(EmbeddedS3 s3, String bucket) {
    Map<String, String> claimcheck = new HashMap<>();
    claimcheck.put("claimcheck.stores", "s3://" + bucket + "/demo");
    claimcheck.put("claimcheck.s3.endpoint", s3.endpoint().toString());
    claimcheck.put("claimcheck.s3.region", s3.region());
    claimcheck.put("claimcheck.s3.path.style.access", "true");
    claimcheck.put("claimcheck.s3.access.key.id", s3.accessKey());
    claimcheck.put("claimcheck.s3.secret.access.key", s3.secretKey());
    claimcheck.put("claimcheck.threshold.bytes", String.valueOf(THRESHOLD));
    claimcheck.put("claimcheck.compression.type", "zstd");
    claimcheck.put("claimcheck.tenant", "demo");
    return claimcheck;
  }

  private static Map<String, byte[]> produce(EmbeddedKafka kafka, Map<String, Object> claimcheck)
      throws Exception {
    Map<String, Object> p = new HashMap<>(claimcheck);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    Map<String, byte[]> sent = new TreeMap<>();
    Random random = new Random(7);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), configured(new ClaimCheckSerializer<>(), claimcheck))) {
      for (int size : SIZES) {
        byte[] value = new byte[size];
        random.nextBytes(value);
        String key = "value-" + size;
        var meta = producer.send(new ProducerRecord<>("demo-in", key, value)).get();
        sent.put(key, value);
        System.out.printf("sent %-14s %,10d bytes -> record of %,8d bytes%n",
            key, size, meta.serializedValueSize());
      }
    }
    return sent;
  }

  private static KafkaStreams transform(
      EmbeddedKafka kafka, Map<String, Object> claimcheck, ClaimCheckSerde<byte[]> serde)
      throws Exception {
    Properties props = new Properties();
    props.putAll(claimcheck);
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "claimcheck-demo");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("demo-streams").toString());
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    StreamsBuilder builder = new StreamsBuilder();
    serde.configure(claimcheck, false);
    builder.stream("demo-in", Consumed.with(Serdes.String(), serde))
        .mapValues(Demo::reverse)
        .to("demo-out", Produced.with(Serdes.String(), serde));
    return new KafkaStreams(builder.build(), props);
  }

  private static int consume(EmbeddedKafka kafka, Map<String, Object> claimcheck,
      Map<String, byte[]> sent) {
    Map<String, Object> c = new HashMap<>(claimcheck);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "claimcheck-demo-reader");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    int ok = 0;
    int seen = 0;
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
        configured(new ClaimCheckDeserializer<>(), claimcheck))) {
      consumer.subscribe(List.of("demo-out"));
      while (seen < sent.size() && System.nanoTime() < until) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          seen++;
          boolean same = java.util.Arrays.equals(r.value(), reverse(sent.get(r.key())));
          ok += same ? 1 : 0;
          boolean ref = r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null;
          System.out.printf("got  %-14s %,10d bytes (%s) %s%n", r.key(), r.value().length,
              ref ? "redeemed from S3" : "inline", same ? "identical" : "DIFFERENT");
        }
      }
    }
    return ok;
  }

  private static <T extends org.apache.kafka.common.serialization.Serializer<byte[]>> T configured(
      T serializer, Map<String, Object> config) {
    serializer.configure(config, false);
    return serializer;
  }

  private static <T extends org.apache.kafka.common.serialization.Deserializer<byte[]>> T configured(
      T deserializer, Map<String, Object> config) {
    deserializer.configure(config, false);
    return deserializer;
  }

  private static byte[] reverse(byte[] value) {
    byte[] out = new byte[value.length];
    for (int i = 0; i < value.length; i++) {
      out[i] = value[value.length - 1 - i];
    }
    return out;
  }
}
