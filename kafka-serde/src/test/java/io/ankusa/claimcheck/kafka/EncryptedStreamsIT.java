package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.testkit.Planted;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Materialized;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams app with {@link ClaimCheckSerde} as its default value serde and a {@code local:}
 * KEK (issue 19), over a real broker and S3Proxy: values pass a repartition topic, a state store
 * and its changelog and reach the output byte for byte; every hop's ref is encrypted, and the
 * objects S3Proxy holds contain none of a planted marker and are compressed, then encrypted.
 */
class EncryptedStreamsIT {

  private static final String TENANT = "streams";
  private static FaultProxy proxy;
  private static String bucket;
  @TempDir static Path dir;

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("enc-streams"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private static byte[] upper(byte[] v) {
    // The marker is upper case already, so it survives the topology's change of the value.
    return new String(v, StandardCharsets.US_ASCII)
        .toUpperCase(Locale.ROOT)
        .getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void aTopologyWithAStateStoreKeepsEveryValueAndStoresOnlyCompressedCiphertext() throws Exception {
    Path key = dir.resolve("kek.json");
    Files.writeString(key, LocalKekProvider.newKeyFile());
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    cc.put("claimcheck.tenant", TENANT);
    cc.put("claimcheck.threshold.bytes", 1000);
    cc.put("claimcheck.compression.type", "zstd");
    cc.put("claimcheck.encryption.kek", "local:" + key);
    cc.put("claimcheck.encryption.required", "true");
    String in = Servers.unique("in");
    String out = Servers.unique("out");
    Servers.kafka().createTopic(in, 1);
    Servers.kafka().createTopic(out, 1);
    String app = Servers.unique("enc-app");

    Properties p = new Properties();
    p.putAll(cc);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
    p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 3_600_000L); // keep it to read back
    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, byte[]>stream(in)
        .mapValues(EncryptedStreamsIT::upper)
        .selectKey((k, v) -> k + "-r")
        .groupByKey() // a repartition topic: refs through the default serde
        .reduce((older, newer) -> newer, Materialized.as("latest")) // a state store + changelog
        .toStream()
        .to(out);

    int[] sizes = {2_000, 40_000, 250_000};
    long raw = 0;
    Map<String, byte[]> got = new HashMap<>();
    KafkaStreams streams = new KafkaStreams(builder.build(p), p);
    try {
      streams.setUncaughtExceptionHandler(e -> StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
      streams.start();
      // The input's producer checks in uncompressed, under a tenant of its own.
      Map<String, Object> input = new HashMap<>(cc);
      input.put("claimcheck.tenant", TENANT + "-in");
      input.put("claimcheck.compression.type", "none");
      try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(input))) {
        for (int i = 0; i < sizes.length; i++) {
          producer.send(new ProducerRecord<>(in, "k" + i, Planted.value(sizes[i], 40 + i)));
          raw += sizes[i];
        }
        producer.flush();
      }
      try (KafkaConsumer<String, byte[]> c =
          new KafkaConsumer<>(Servers.consumer(cc, Servers.unique("g")))) {
        c.subscribe(List.of(out));
        for (ConsumerRecord<String, byte[]> r :
            Servers.pollAll(c, sizes.length, Duration.ofSeconds(90))) {
          got.put(r.key(), r.value());
        }
      }
    } finally {
      streams.close(Duration.ofSeconds(10));
    }
    assertThat(got).hasSize(sizes.length);
    for (int i = 0; i < sizes.length; i++) {
      assertThat(got.get("k" + i + "-r"))
          .as("value %d", i)
          .isEqualTo(upper(Planted.value(sizes[i], 40 + i)));
    }
    // Every hop carried an encrypted ref: the repartition topic and the changelog too.
    List<String> hops = List.of(app + "-latest-repartition", app + "-latest-changelog", out, in);
    Map<String, Object> c = Servers.consumer(Map.of(), Servers.unique("raw"));
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    Map<String, Integer> encrypted = new HashMap<>();
    try (KafkaConsumer<String, byte[]> rawConsumer = new KafkaConsumer<>(c)) {
      List<TopicPartition> tps = hops.stream().map(t -> new TopicPartition(t, 0)).toList();
      rawConsumer.assign(tps); // no group to join
      rawConsumer.seekToBeginning(tps);
      for (ConsumerRecord<String, byte[]> r :
          Servers.pollAll(rawConsumer, hops.size() * sizes.length, Duration.ofSeconds(30))) {
        assertThat(RefCodec.decode(r.value()).isEncrypted()).as("ref on %s", r.topic()).isTrue();
        encrypted.merge(r.topic(), 1, Integer::sum);
      }
    }
    for (String topic : hops) {
      assertThat(encrypted.get(topic)).as("encrypted refs on %s", topic).isEqualTo(sizes.length);
    }
    // Checked in at the producer, then by the app at each hop (repartition, changelog, output).
    Map<String, byte[]> checkedInByProducer = Servers.s3().objects(bucket, TENANT + "-in/");
    assertThat(checkedInByProducer).hasSize(sizes.length);
    assertThat(Planted.notCiphertext(checkedInByProducer)).isEmpty();
    Map<String, byte[]> checkedInByApp = Servers.s3().objects(bucket, TENANT + "/");
    assertThat(checkedInByApp).hasSize(3 * sizes.length);
    assertThat(Planted.notCompressedCiphertext(checkedInByApp, 3 * raw)).isEmpty();
  }
}
