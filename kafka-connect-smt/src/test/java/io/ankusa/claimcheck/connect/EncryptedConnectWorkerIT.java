package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Planted;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Connect transforms and {@link ClaimCheckConverter} with a {@code local:} KEK (issue 19) in a
 * standalone worker inside the test JVM, over a real broker and S3Proxy: a source's values, checked
 * in by {@code CheckIn} or by the converter, and a producer's, redeemed by {@code Redeem} or by the
 * converter, arrive byte for byte; the objects S3Proxy holds contain none of a planted marker and
 * are compressed, then encrypted; a sink converter without the KEK fails its task naming the KEK
 * and delivers nothing. Each connector writes under its own tenant.
 */
class EncryptedConnectWorkerIT {

  private static final int[] SIZES = {10, 5_000, 60_000, 300_000};
  private static final int THRESHOLD = 1000;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path dir;
  private static Connect<?> connect;
  private static String bucket;
  private static String kek;

  @BeforeAll
  static void startWorker() throws Exception {
    bucket =
        EmbeddedS3.shared().createBucket("enc-smt-" + UUID.randomUUID().toString().substring(0, 8));
    Path key = dir.resolve("kek.json");
    Files.writeString(key, LocalKekProvider.newKeyFile());
    kek = "local:" + key;
    Map<String, String> worker = new HashMap<>();
    worker.put("bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
    worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    worker.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    worker.put("offset.storage.file.filename", dir.resolve("offsets").toString());
    worker.put("offset.flush.interval.ms", "1000");
    worker.put("plugin.discovery", "service_load");
    worker.put("listeners", "http://localhost:0");
    connect = new ConnectStandalone().startConnect(worker);
  }

  @AfterAll
  static void stopWorker() {
    if (connect != null) {
      connect.stop();
      connect.awaitStop();
    }
  }

  /** Tenant {@code tenant}'s claim-check keys under {@code prefix}: zstd, encrypted when asked. */
  private static Map<String, String> claimCheck(String prefix, String tenant, boolean encrypted) {
    return claimCheck(prefix, tenant, encrypted, "zstd");
  }

  private static Map<String, String> claimCheck(
      String prefix, String tenant, boolean encrypted, String codec) {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    Map<String, String> m = new HashMap<>();
    m.put(prefix + "claimcheck.stores", "s3://" + bucket);
    m.put(prefix + "claimcheck.s3.endpoint", s3.endpoint().toString());
    m.put(prefix + "claimcheck.s3.region", s3.region());
    m.put(prefix + "claimcheck.s3.path.style.access", "true");
    m.put(prefix + "claimcheck.s3.access.key.id", s3.accessKey());
    m.put(prefix + "claimcheck.s3.secret.access.key", s3.secretKey());
    m.put(prefix + "claimcheck.tenant", tenant);
    m.put(prefix + "claimcheck.threshold.bytes", String.valueOf(THRESHOLD));
    m.put(prefix + "claimcheck.compression.type", codec);
    if (encrypted) {
      m.put(prefix + "claimcheck.encryption.kek", kek);
    }
    return m;
  }

  private static long rawBytesCheckedIn() {
    return Arrays.stream(SIZES).filter(s -> s >= THRESHOLD).asLongStream().sum();
  }

  private static int checkedIn() {
    return (int) Arrays.stream(SIZES).filter(s -> s >= THRESHOLD).count();
  }

  /**
   * The objects S3Proxy holds for {@code tenant}: the checked-in values, as ciphertext only, and
   * {@code compressed} before they were sealed.
   */
  private static void onlyCiphertextStored(String tenant, boolean compressed) {
    Map<String, byte[]> stored = EmbeddedS3.shared().objects(bucket, tenant + "/");
    assertThat(stored).as("objects of %s", tenant).hasSize(checkedIn());
    assertThat(
            compressed
                ? Planted.notCompressedCiphertext(stored, rawBytesCheckedIn())
                : Planted.notCiphertext(stored))
        .isEmpty();
  }

  @Test
  void valuesCheckedInBySourceConnectorsAreEncryptedAndReadByTheDeserializer() throws Exception {
    String smt = "enc-src-smt-" + UUID.randomUUID().toString().substring(0, 8);
    String conv = "enc-src-conv-" + UUID.randomUUID().toString().substring(0, 8);
    EmbeddedKafka.shared().createTopic(smt, 1);
    EmbeddedKafka.shared().createTopic(conv, 1);
    Map<String, String> viaTransform =
        source(smt, claimCheck("transforms.cc.", "src-smt", true, "none"));
    viaTransform.put("transforms", "cc");
    viaTransform.put("transforms.cc.type", CheckIn.Value.class.getName());
    createConnector("enc-source-smt", viaTransform);
    Map<String, String> viaConverter =
        source(conv, claimCheck("value.converter.", "src-conv", true));
    viaConverter.put("value.converter", ClaimCheckConverter.class.getName());
    viaConverter.put(
        "value.converter.claimcheck.converter.inner",
        "org.apache.kafka.connect.converters.ByteArrayConverter");
    createConnector("enc-source-conv", viaConverter);

    for (String topic : List.of(smt, conv)) {
      List<ConsumerRecord<String, byte[]>> got = poll(topic, true);
      for (int i = 0; i < SIZES.length; i++) {
        assertThat(got.get(i).value())
            .as("%s value %d", topic, i)
            .isEqualTo(Planted.value(SIZES[i], i));
      }
      List<ConsumerRecord<String, byte[]>> raw = poll(topic, false);
      for (int i = 0; i < SIZES.length; i++) {
        assertThat(RefCodec.isRef(raw.get(i).value())).isEqualTo(SIZES[i] >= THRESHOLD);
        if (SIZES[i] >= THRESHOLD) {
          assertThat(RefCodec.decode(raw.get(i).value()).isEncrypted()).isTrue();
        }
      }
    }
    onlyCiphertextStored("src-smt", false);
    onlyCiphertextStored("src-conv", true);
  }

  @Test
  void encryptedValuesAreRedeemedForSinksOnlyWhereTheKekIsConfigured() throws Exception {
    String smt = "enc-sink-smt-" + UUID.randomUUID().toString().substring(0, 8);
    String conv = "enc-sink-conv-" + UUID.randomUUID().toString().substring(0, 8);
    String without = "enc-sink-nokek-" + UUID.randomUUID().toString().substring(0, 8);
    for (String topic : List.of(smt, conv, without)) {
      EmbeddedKafka.shared().createTopic(topic, 1);
    }
    Map<String, Object> producer = new HashMap<>(claimCheck("", "sink", true));
    producer.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    producer.put(
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class.getName());
    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producer)) {
      for (int i = 0; i < SIZES.length; i++) {
        for (String topic : List.of(smt, conv)) {
          p.send(new ProducerRecord<>(topic, "k" + i, Planted.value(SIZES[i], i)));
        }
      }
      p.send(new ProducerRecord<>(without, "k", Planted.value(60_000, 9)));
      p.flush();
    }

    Map<String, String> viaTransform = sink(smt, claimCheck("transforms.cc.", "sink", true));
    viaTransform.put("transforms", "cc");
    viaTransform.put("transforms.cc.type", Redeem.Value.class.getName());
    createConnector("enc-sink-smt", viaTransform);
    Map<String, String> viaConverter = sink(conv, claimCheck("value.converter.", "sink", true));
    viaConverter.put("value.converter", ClaimCheckConverter.class.getName());
    createConnector("enc-sink-conv", viaConverter);
    Map<String, String> noKek = sink(without, claimCheck("value.converter.", "sink", false));
    noKek.put("value.converter", ClaimCheckConverter.class.getName());
    createConnector("enc-sink-nokek", noKek);

    for (String topic : List.of(smt, conv)) {
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (received(topic).size() < SIZES.length && System.nanoTime() < end) {
        Thread.sleep(100);
      }
      List<SinkRecord> got = received(topic);
      assertThat(got).as("records at %s", topic).hasSize(SIZES.length);
      for (int i = 0; i < SIZES.length; i++) {
        assertThat((byte[]) got.get(i).value())
            .as("%s value %d", topic, i)
            .isEqualTo(Planted.value(SIZES[i], i));
      }
    }
    // Both topics' claims: twice the values checked in.
    Map<String, byte[]> stored = EmbeddedS3.shared().objects(bucket, "sink/");
    assertThat(stored).hasSize(2 * checkedIn() + 1);
    assertThat(Planted.notCompressedCiphertext(stored, 2 * rawBytesCheckedIn() + 60_000)).isEmpty();

    String status = "";
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!status.contains("\"FAILED\"") && System.nanoTime() < end) {
      Thread.sleep(100);
      status = get("connectors/enc-sink-nokek/status");
    }
    assertThat(status).contains("\"FAILED\"").contains("REFUSED").contains(kek);
    assertThat(received(without)).as("nothing delivered without the KEK").isEmpty();
  }

  private static Map<String, String> source(String topic, Map<String, String> claimCheck) {
    Map<String, String> config = new HashMap<>(claimCheck);
    config.put("connector.class", PatternSourceConnector.class.getName());
    config.put("tasks.max", "1");
    config.put("topic", topic);
    config.put("values", "planted");
    config.put(
        "sizes", Arrays.stream(SIZES).mapToObj(String::valueOf).collect(Collectors.joining(",")));
    return config;
  }

  private static Map<String, String> sink(String topic, Map<String, String> claimCheck) {
    Map<String, String> config = new HashMap<>(claimCheck);
    config.put("connector.class", CollectingSinkConnector.class.getName());
    config.put("tasks.max", "1");
    config.put("topics", topic);
    return config;
  }

  /** Every record of {@code topic}, redeemed with the KEK or raw. */
  private static List<ConsumerRecord<String, byte[]>> poll(String topic, boolean redeemed) {
    Map<String, Object> consumer = new HashMap<>(claimCheck("", "reader", true));
    consumer.put(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "enc-" + UUID.randomUUID());
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    consumer.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        (redeemed ? ClaimCheckDeserializer.class : ByteArrayDeserializer.class).getName());
    List<ConsumerRecord<String, byte[]>> got = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumer)) {
      c.subscribe(List.of(topic));
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (got.size() < SIZES.length && System.nanoTime() < end) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
    }
    assertThat(got).as("records on %s", topic).hasSize(SIZES.length);
    return got;
  }

  private static List<SinkRecord> received(String topic) {
    return CollectingSinkConnector.RECEIVED.stream().filter(r -> r.topic().equals(topic)).toList();
  }

  private static String get(String path) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create(connect.rest().serverUrl() + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static void createConnector(String name, Map<String, String> config) throws Exception {
    String body =
        "{\"name\":"
            + json(name)
            + ",\"config\":{"
            + config.entrySet().stream()
                .map(e -> json(e.getKey()) + ":" + json(e.getValue()))
                .collect(Collectors.joining(","))
            + "}}";
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(connect.rest().serverUrl() + "connectors"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
  }

  private static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
