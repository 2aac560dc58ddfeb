package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchStats;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.kafka.producer.ClaimCheckProducer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.testkit.Planted;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Envelope encryption from config alone (issue 19) on the Kafka surfaces, over a real KRaft broker
 * and S3Proxy: the serializer / deserializer and the pipelined {@link ClaimCheckProducer} read by a
 * {@link PrefetchingConsumer} round-trip byte for byte; the objects S3Proxy holds (read from its
 * blob store) contain none of a planted marker and are compressed, then encrypted; a deserializer
 * without the KEK fails naming it and never returns ciphertext; key check-in with a KEK is refused
 * at configuration. Each test writes under its own tenant, so it sees only its own objects.
 */
class EncryptedKafkaIT {

  private static FaultProxy proxy;
  private static String bucket;
  @TempDir static Path dir;
  private static String kek;

  @BeforeAll
  static void servers() throws Exception {
    bucket = Servers.s3().createBucket(Servers.unique("enc"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
    Path key = dir.resolve("kek.json");
    Files.writeString(key, LocalKekProvider.newKeyFile());
    kek = "local:" + key;
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  /** Tenant {@code tenant}'s config: {@code codec}, a 1000-byte threshold, the KEK {@code kek}. */
  static Map<String, Object> config(String tenant, String codec, String kek) {
    Map<String, Object> m = Servers.oneStore(proxy, bucket);
    m.put("claimcheck.tenant", tenant);
    m.put("claimcheck.threshold.bytes", 1000);
    m.put("claimcheck.compression.type", codec);
    if (kek != null) {
      m.put("claimcheck.encryption.kek", kek);
    }
    return m;
  }

  /**
   * Asserts what S3Proxy holds for {@code tenant} (read from its blob store): {@code objects} or
   * more objects, each ciphertext ({@link Planted#notCiphertext}: no marker, does not deflate);
   * with {@code compressed}, all of them under a quarter of the {@code rawBytes} the values took
   * (compressed before they were sealed: sealed first, they would not have shrunk).
   */
  static void onlyCiphertextStored(String tenant, int objects, long rawBytes, boolean compressed) {
    Map<String, byte[]> stored = Servers.s3().objects(bucket, tenant + "/");
    assertThat(stored).as("objects of %s", tenant).hasSizeGreaterThanOrEqualTo(objects);
    assertThat(
            compressed
                ? Planted.notCompressedCiphertext(stored, rawBytes)
                : Planted.notCiphertext(stored))
        .isEmpty();
  }

  private static KafkaConsumer<String, byte[]> consumer(Map<String, Object> cc) {
    return new KafkaConsumer<>(Servers.consumer(cc, Servers.unique("g")));
  }

  @Test
  void theSerializerEncryptsAndOnlyADeserializerWithTheKekGetsTheValueBack() {
    String topic = Servers.unique("enc-serde");
    Servers.kafka().createTopic(topic, 1);
    int[] sizes = {5_000, 60_000, 300_000};
    long raw = 0;
    for (String codec : List.of("none", "zstd")) {
      try (KafkaProducer<String, byte[]> p =
          new KafkaProducer<>(Servers.producer(config("serde-" + codec, codec, kek)))) {
        for (int i = 0; i < sizes.length; i++) {
          p.send(new ProducerRecord<>(topic, codec + i, Planted.value(sizes[i], i)));
        }
        p.flush();
      }
    }
    for (int size : sizes) {
      raw += size;
    }
    Map<String, Object> reader = config("reader", "none", kek);
    try (KafkaConsumer<String, byte[]> c = consumer(reader)) {
      c.subscribe(List.of(topic));
      List<ConsumerRecord<String, byte[]>> got =
          Servers.pollAll(c, 2 * sizes.length, Duration.ofSeconds(60));
      assertThat(got).hasSize(2 * sizes.length);
      for (ConsumerRecord<String, byte[]> r : got) {
        int i = r.key().charAt(4) - '0';
        assertThat(r.value()).as("value %s", r.key()).isEqualTo(Planted.value(sizes[i], i));
      }
    }
    for (ClaimRef r : refsOn(topic, 2 * sizes.length)) {
      assertThat(r.isEncrypted()).isTrue();
      assertThat(r.codec()).isIn(Codec.NONE, Codec.ZSTD);
    }
    onlyCiphertextStored("serde-none", sizes.length, raw, false);
    onlyCiphertextStored("serde-zstd", sizes.length, raw, true);

    // A reader without the KEK: a clear REFUSED naming the KEK id, never the ciphertext.
    try (KafkaConsumer<String, byte[]> c = consumer(config("reader", "none", null))) {
      c.subscribe(List.of(topic));
      Throwable t = catchThrowable(() -> Servers.pollAll(c, 1, Duration.ofSeconds(60)));
      assertThat(t).isInstanceOf(RecordDeserializationException.class);
      assertThat(t.getCause())
          .isInstanceOf(ClaimCheckException.class)
          .hasMessageContaining("REFUSED")
          .hasMessageContaining("encrypted under KEK " + kek);
    }
  }

  /** The checks above can fail: without a KEK, what S3Proxy holds is found to be plaintext. */
  @Test
  void withoutAKekTheStoredBytesAreFoundToBePlaintext() {
    for (String codec : List.of("none", "zstd")) {
      try (ClaimCheckSerializer<byte[]> s = new ClaimCheckSerializer<>()) {
        s.configure(config("plain-" + codec, codec, null), false);
        assertThat(RefCodec.decode(s.serialize("t", Planted.value(60_000, 1))).isEncrypted())
            .isFalse();
      }
    }
    Map<String, byte[]> none = Servers.s3().objects(bucket, "plain-none/");
    assertThat(Planted.notCiphertext(none))
        .anyMatch(wrong -> wrong.endsWith("holds the plaintext marker"))
        .anyMatch(wrong -> wrong.contains(" deflates from "));
    // Compressed plaintext hides the marker (zstd codes literals) but still deflates.
    Map<String, byte[]> zstd = Servers.s3().objects(bucket, "plain-zstd/");
    assertThat(Planted.notCompressedCiphertext(zstd, 60_000))
        .anyMatch(wrong -> wrong.contains(" deflates from "));
  }

  @Test
  void thePipelinedProducerEncryptsAndThePrefetchingConsumerRedeemsEveryValue() {
    String topic = Servers.unique("enc-pipe");
    Servers.kafka().createTopic(topic, 2);
    int n = 12;
    long raw = 0;
    for (String codec : List.of("none", "zstd")) {
      Map<String, Object> pc = new HashMap<>(config("pipe-" + codec, codec, kek));
      pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
      pc.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      try (ClaimCheckProducer<String, byte[]> p =
          new ClaimCheckProducer<>(pc, new StringSerializer(), new ByteArraySerializer())) {
        for (int i = 0; i < n; i++) {
          p.send(new ProducerRecord<>(topic, codec + i, pipelined(i)));
        }
        p.flush();
      }
    }
    for (int i = 0; i < n; i++) {
      raw += pipelined(i).length;
    }
    Map<String, Object> cc = config("reader", "none", kek);
    Map<String, Object> c = Servers.consumer(cc, Servers.unique("g"));
    int seen = 0;
    PrefetchStats stats;
    try (ClaimCheckDeserializer<byte[]> d = new ClaimCheckDeserializer<>();
        PrefetchingConsumer pre =
            new PrefetchingConsumer(
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                cc)) {
      d.configure(cc, false);
      pre.subscribe(List.of(topic));
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (seen < 2 * n && System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : pre.poll(Duration.ofMillis(200))) {
          assertThat(RefCodec.decode(r.value()).isEncrypted()).isTrue();
          String key = new String(r.key(), StandardCharsets.UTF_8);
          int i = Integer.parseInt(key.substring(4));
          assertThat(d.deserialize(r.topic(), r.headers(), r.value()))
              .as("value %s", key)
              .isEqualTo(pipelined(i));
          seen++;
        }
      }
      stats = pre.stats();
    }
    assertThat(seen).isEqualTo(2 * n);
    assertThat(stats.started()).isEqualTo(2 * n);
    assertThat(stats.failed() + stats.skipped() + stats.malformed()).isZero();
    onlyCiphertextStored("pipe-none", 1, raw, false);
    onlyCiphertextStored("pipe-zstd", 1, raw, true);
  }

  private static byte[] pipelined(int i) {
    return Planted.value(3_000 + 2_000 * i, 100 + i);
  }

  @Test
  void keyCheckInWithAKekIsRefusedAtConfigurationNamingTheKey() {
    Map<String, Object> cc = config("keys", "none", kek);
    cc.put("claimcheck.keys.enabled", "true");
    Map<String, Object> pc = Servers.producer(cc);
    assertThatThrownBy(() -> new KafkaProducer<>(pc).close())
        .isInstanceOf(KafkaException.class)
        .rootCause()
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.keys.enabled");
    assertThat(Servers.s3().objects(bucket, "keys/")).isEmpty();
  }

  /** The refs on {@code topic}, read raw (no deserializer). */
  private static List<ClaimRef> refsOn(String topic, int n) {
    Map<String, Object> c = Servers.consumer(Map.of(), Servers.unique("raw"));
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ClaimRef> refs = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> raw = new KafkaConsumer<>(c)) {
      raw.subscribe(List.of(topic));
      for (ConsumerRecord<String, byte[]> r : Servers.pollAll(raw, n, Duration.ofSeconds(30))) {
        refs.add(RefCodec.decode(r.value()));
      }
    }
    assertThat(refs).hasSize(n);
    return refs;
  }
}
