package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Kafka Connect's standalone worker in the test JVM, a real broker and a real S3 server: refs
 * written by CheckIn or ClaimCheckConverter are read by the deserializer, refs written by the
 * serializer are redeemed by Redeem and by ClaimCheckConverter, every value byte-identical.
 */
class ConnectWorkerIT {

  private static final int THRESHOLD = 262_144;
  private static final int[] SIZES = {
    10, 1000, 100_000, THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, 1 << 20, 2 << 20, 3
  };

  @TempDir static Path dir;
  private static Connect<?> connect;
  private static String bucket;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void startWorker() {
    bucket =
        EmbeddedS3.shared().createBucket("smt-" + UUID.randomUUID().toString().substring(0, 8));
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

  private static Map<String, String> claimCheck(String prefix) {
    return claimCheck(prefix, EmbeddedS3.shared().endpoint());
  }

  private static Map<String, String> claimCheck(String prefix, URI endpoint) {
    Map<String, String> m = new HashMap<>();
    EmbeddedS3 s3 = EmbeddedS3.shared();
    m.put(prefix + "claimcheck.stores", "s3://" + bucket);
    m.put(prefix + "claimcheck.s3.endpoint", endpoint.toString());
    m.put(prefix + "claimcheck.s3.region", s3.region());
    m.put(prefix + "claimcheck.s3.path.style.access", "true");
    m.put(prefix + "claimcheck.s3.access.key.id", s3.accessKey());
    m.put(prefix + "claimcheck.s3.secret.access.key", s3.secretKey());
    m.put(prefix + "claimcheck.tenant", "connect-it");
    return m;
  }

  @Test
  void valuesCheckedInByASourceConnectorAreReadByTheDeserializer() throws Exception {
    String topic = "smt-src-" + UUID.randomUUID().toString().substring(0, 8);
    EmbeddedKafka.shared().createTopic(topic, 1);
    Map<String, String> config = new HashMap<>(claimCheck("transforms.cc."));
    config.put("connector.class", PatternSourceConnector.class.getName());
    config.put("tasks.max", "1");
    config.put("topic", topic);
    config.put(
        "sizes",
        java.util.Arrays.stream(SIZES).mapToObj(String::valueOf).collect(Collectors.joining(",")));
    config.put("transforms", "cc");
    config.put("transforms.cc.type", CheckIn.Value.class.getName());
    createConnector("pattern-source", config);

    Map<String, Object> consumer = new HashMap<>();
    claimCheck("").forEach(consumer::put);
    consumer.put(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID());
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    consumer.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ClaimCheckDeserializer.class.getName());
    List<ConsumerRecord<String, byte[]>> got = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumer)) {
      c.subscribe(List.of(topic));
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (got.size() < SIZES.length && System.nanoTime() < end) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
    }
    assertThat(got).hasSize(SIZES.length);
    for (int i = 0; i < SIZES.length; i++) {
      ConsumerRecord<String, byte[]> r = got.get(i);
      assertThat(r.key()).isEqualTo("k" + i);
      assertThat(r.value())
          .as("value %d (%d bytes)", i, SIZES[i])
          .isEqualTo(PatternSourceConnector.pattern(SIZES[i], i));
      assertThat(r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null)
          .as("marker on value %d (%d bytes)", i, SIZES[i])
          .isEqualTo(SIZES[i] >= THRESHOLD);
    }
    // The wire itself carried refs for the large ones (read once more, without the deserializer).
    consumer.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "raw-" + UUID.randomUUID());
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumer)) {
      c.subscribe(List.of(topic));
      List<ConsumerRecord<String, byte[]>> raw = new ArrayList<>();
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (raw.size() < SIZES.length && System.nanoTime() < end) {
        c.poll(Duration.ofMillis(200)).forEach(raw::add);
      }
      assertThat(raw).hasSize(SIZES.length);
      for (int i = 0; i < SIZES.length; i++) {
        assertThat(RefCodec.isRef(raw.get(i).value()))
            .as("ref on the wire for value %d", i)
            .isEqualTo(SIZES[i] >= THRESHOLD);
      }
    }
  }

  @Test
  void valuesWrittenByTheSerializerAreRedeemedForASinkConnector() throws Exception {
    String topic = "smt-sink-" + UUID.randomUUID().toString().substring(0, 8);
    EmbeddedKafka.shared().createTopic(topic, 1);
    Map<String, Object> producer = new HashMap<>(claimCheck(""));
    producer.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    producer.put(
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class.getName());
    producer.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producer)) {
      for (int i = 0; i < SIZES.length; i++) {
        p.send(new ProducerRecord<>(topic, "k" + i, PatternSourceConnector.pattern(SIZES[i], i)));
      }
      p.flush();
    }

    Map<String, String> config = new HashMap<>(claimCheck("transforms.cc."));
    config.put("connector.class", CollectingSinkConnector.class.getName());
    config.put("tasks.max", "1");
    config.put("topics", topic);
    config.put("transforms", "cc");
    config.put("transforms.cc.type", Redeem.Value.class.getName());
    createConnector("collecting-sink", config);

    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (received(topic).size() < SIZES.length && System.nanoTime() < end) {
      Thread.sleep(100);
    }
    List<SinkRecord> got = received(topic);
    assertThat(got).hasSize(SIZES.length);
    for (int i = 0; i < SIZES.length; i++) {
      SinkRecord r = got.get(i);
      assertThat(r.key()).isEqualTo("k" + i);
      assertThat((byte[]) r.value())
          .as("value %d (%d bytes)", i, SIZES[i])
          .isEqualTo(PatternSourceConnector.pattern(SIZES[i], i));
      assertThat(r.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNull();
    }
  }

  @Test
  void aStoreOutageOnTheSinkSideIsRetriedAndNoRecordIsSkippedEvenWithToleranceAll()
      throws Exception {
    String topic = "smt-outage-" + UUID.randomUUID().toString().substring(0, 8);
    EmbeddedKafka.shared().createTopic(topic, 1);
    int[] sizes = {10, THRESHOLD, 500_000, 20};
    try (FaultProxy proxy = FaultProxy.inFrontOf(EmbeddedS3.shared())) {
      Map<String, Object> producer = new HashMap<>(claimCheck("", proxy.endpoint()));
      producer.put(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
      producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producer.put(
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class.getName());
      try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producer)) {
        for (int i = 0; i < sizes.length; i++) {
          p.send(new ProducerRecord<>(topic, "k" + i, PatternSourceConnector.pattern(sizes[i], i)));
        }
        p.flush();
      }

      proxy.inject(Fault.serverError(), "GET"); // the store cannot answer reads
      proxy.resetCounts();
      Map<String, String> config = new HashMap<>(claimCheck("transforms.cc.", proxy.endpoint()));
      config.put("connector.class", CollectingSinkConnector.class.getName());
      config.put("tasks.max", "1");
      config.put("topics", topic);
      config.put("transforms", "cc");
      config.put("transforms.cc.type", Redeem.Value.class.getName());
      config.put("errors.tolerance", "all");
      config.put("errors.retry.timeout", "-1");
      config.put("errors.retry.delay.max.ms", "500");
      createConnector("outage-sink", config);

      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (proxy.requestCount("GET") < 4 && System.nanoTime() < end) {
        Thread.sleep(50);
      }
      assertThat(proxy.requestCount("GET")).as("the worker keeps retrying").isGreaterThan(3);
      assertThat(received(topic)).as("nothing is delivered past a claim it cannot read").isEmpty();

      proxy.clear();
      end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (received(topic).size() < sizes.length && System.nanoTime() < end) {
        Thread.sleep(100);
      }
    }
    List<SinkRecord> got = received(topic);
    assertThat(got).as("no record skipped").hasSize(sizes.length);
    for (int i = 0; i < sizes.length; i++) {
      assertThat((byte[]) got.get(i).value())
          .as("value %d (%d bytes)", i, sizes[i])
          .isEqualTo(PatternSourceConnector.pattern(sizes[i], i));
    }
  }

  /** ClaimCheckConverter as a source connector's value.converter, read by the deserializer. */
  @Test
  void valuesTheConverterChecksInForASourceConnectorAreReadByTheDeserializer() throws Exception {
    String topic = "conv-src-" + UUID.randomUUID().toString().substring(0, 8);
    EmbeddedKafka.shared().createTopic(topic, 1);
    Map<String, String> config = new HashMap<>(claimCheck("value.converter."));
    config.put("connector.class", PatternSourceConnector.class.getName());
    config.put("tasks.max", "1");
    config.put("topic", topic);
    config.put(
        "sizes",
        java.util.Arrays.stream(SIZES).mapToObj(String::valueOf).collect(Collectors.joining(",")));
    config.put("value.converter", ClaimCheckConverter.class.getName());
    config.put(
        "value.converter.claimcheck.converter.inner",
        "org.apache.kafka.connect.converters.ByteArrayConverter");
    createConnector("converter-source", config);

    Map<String, Object> consumer = new HashMap<>(claimCheck(""));
    consumer.put(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "conv-" + UUID.randomUUID());
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    consumer.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ClaimCheckDeserializer.class.getName());
    List<ConsumerRecord<String, byte[]>> got = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumer)) {
      c.subscribe(List.of(topic));
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (got.size() < SIZES.length && System.nanoTime() < end) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
    }
    assertThat(got).hasSize(SIZES.length);
    for (int i = 0; i < SIZES.length; i++) {
      ConsumerRecord<String, byte[]> r = got.get(i);
      assertThat(r.key()).isEqualTo("k" + i);
      assertThat(r.value())
          .as("value %d (%d bytes)", i, SIZES[i])
          .isEqualTo(PatternSourceConnector.pattern(SIZES[i], i));
      assertThat(r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null)
          .as("marker on value %d (%d bytes)", i, SIZES[i])
          .isEqualTo(SIZES[i] >= THRESHOLD);
    }
  }

  /** ClaimCheckConverter as a sink connector's value.converter, reading the serializer's refs. */
  @Test
  void valuesWrittenByTheSerializerAreRedeemedByTheConverterForASinkConnector() throws Exception {
    String topic = "conv-sink-" + UUID.randomUUID().toString().substring(0, 8);
    EmbeddedKafka.shared().createTopic(topic, 1);
    Map<String, Object> producer = new HashMap<>(claimCheck(""));
    producer.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    producer.put(
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class.getName());
    producer.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producer)) {
      for (int i = 0; i < SIZES.length; i++) {
        p.send(new ProducerRecord<>(topic, "k" + i, PatternSourceConnector.pattern(SIZES[i], i)));
      }
      p.flush();
    }

    Map<String, String> config = new HashMap<>(claimCheck("value.converter."));
    config.put("connector.class", CollectingSinkConnector.class.getName());
    config.put("tasks.max", "1");
    config.put("topics", topic);
    config.put("value.converter", ClaimCheckConverter.class.getName());
    createConnector("converter-sink", config);

    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (received(topic).size() < SIZES.length && System.nanoTime() < end) {
      Thread.sleep(100);
    }
    List<SinkRecord> got = received(topic);
    assertThat(got).hasSize(SIZES.length);
    for (int i = 0; i < SIZES.length; i++) {
      SinkRecord r = got.get(i);
      assertThat(r.key()).isEqualTo("k" + i);
      assertThat((byte[]) r.value())
          .as("value %d (%d bytes)", i, SIZES[i])
          .isEqualTo(PatternSourceConnector.pattern(SIZES[i], i));
    }
  }

  private static List<SinkRecord> received(String topic) {
    return CollectingSinkConnector.RECEIVED.stream().filter(r -> r.topic().equals(topic)).toList();
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
