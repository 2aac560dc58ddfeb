package io.ankusa.claimcheck.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerde;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library on this module's Kafka version ({@code compat.kafka.version}): the serde round trip
 * (inline and checked in, every compression codec), a Kafka Streams topology, and the packaged
 * Connect plugin in a standalone worker — each value checked byte for byte.
 */
class KafkaVersionCompatIT {

  private static final String VERSION = System.getProperty("compat.kafka.version", "?");
  private static ServersProcess servers;

  @BeforeAll
  static void start() throws Exception {
    assertThat(clientsVersion())
        .as("kafka-clients on the class path")
        .isEqualTo(VERSION);
    servers = ServersProcess.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (servers != null) {
      servers.close();
    }
  }

  @Test
  void serdeRoundTripWithEveryCodec() throws Exception {
    for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
      String topic = "serde-" + codec;
      Map<String, Object> cc = new HashMap<>(servers.claimCheck("serde"));
      cc.put("claimcheck.compression.type", codec);
      produce(topic, cc);
      Map<String, byte[]> got = consume(topic, cc, Values.SIZES.length);
      assertValues(got, "serde " + codec);
      // The checked-in values travel as small refs with the marker header; the inline ones as is.
      Map<String, ConsumerRecord<String, byte[]>> raw = consumeRaw(topic, Values.SIZES.length);
      for (int i = 0; i < Values.SIZES.length; i++) {
        ConsumerRecord<String, byte[]> r = raw.get("k" + i);
        if (Values.SIZES[i] >= 1024) {
          assertThat(r.value().length).as("ref of k%d (%s)", i, codec).isLessThan(100);
          assertThat(r.headers().lastHeader("ankusa.claimcheck.value")).isNotNull();
        } else {
          assertThat(r.value()).isEqualTo(Values.of(Values.SIZES[i], i));
        }
      }
    }
  }

  @Test
  void streamsTopologyThroughTheSerde() throws Exception {
    String in = "streams-in";
    String out = "streams-out";
    createTopics(in, out);
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "compat-" + UUID.randomUUID());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, servers.bootstrapServers());
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("compat-streams").toString());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
    p.put("default.deserialization.exception.handler",
        "io.ankusa.claimcheck.kafka.ClaimCheckDeserializationExceptionHandler");
    Map<String, String> cc = servers.claimCheck("streams");
    p.putAll(cc);
    StreamsBuilder b = new StreamsBuilder();
    ClaimCheckSerde<byte[]> serde = new ClaimCheckSerde<>();
    serde.configure(new HashMap<>(cc), false);
    b.stream(in, Consumed.with(Serdes.String(), serde))
        .mapValues(KafkaVersionCompatIT::reversed)
        .to(out, Produced.with(Serdes.String(), serde));
    try (KafkaStreams streams = new KafkaStreams(b.build(), p)) {
      streams.start();
      produce(in, new HashMap<>(cc));
      Map<String, byte[]> got = consume(out, new HashMap<>(cc), Values.SIZES.length);
      for (int i = 0; i < Values.SIZES.length; i++) {
        assertThat(got.get("k" + i))
            .as("streams k%d", i)
            .isEqualTo(reversed(Values.of(Values.SIZES[i], i)));
      }
    } finally {
      serde.close();
    }
  }

  @Test
  void packagedConnectPluginInAStandaloneWorker() throws Exception {
    Path dir = Files.createTempDirectory("compat-connect");
    Map<String, String> worker = new HashMap<>();
    worker.put("bootstrap.servers", servers.bootstrapServers());
    worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    worker.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    worker.put("offset.storage.file.filename", dir.resolve("offsets").toString());
    worker.put("offset.flush.interval.ms", "1000");
    // The test connectors run from a plugin directory of their own, as connectors do in a real
    // worker; the claim-check transforms from the packaged plugin.
    worker.put("plugin.path", pluginPath() + "," + connectorsPlugin(dir.resolve("plugins")));
    worker.put("plugin.discovery", "service_load");
    worker.put("listeners", "http://localhost:0");

    String source = "connect-source";
    Map<String, String> src = new HashMap<>();
    src.put("name", "source");
    src.put("connector.class", BytesSourceConnector.class.getName());
    src.put("tasks.max", "1");
    src.put("topic", source);
    src.put("transforms", "cc");
    src.put("transforms.cc.type", "io.ankusa.claimcheck.connect.CheckIn$Value");
    servers.claimCheck("connect").forEach((k, v) -> src.put("transforms.cc." + k, v));

    String sink = "connect-sink";
    createTopics(sink);
    produce(sink, new HashMap<>(servers.claimCheck("connect")));
    Path received = Files.createDirectories(dir.resolve("received"));
    Map<String, String> snk = new HashMap<>();
    snk.put("name", "sink");
    snk.put("connector.class", CollectingSinkConnector.class.getName());
    snk.put("tasks.max", "1");
    snk.put("topics", sink);
    snk.put("dir", received.toString());
    snk.put("transforms", "cc");
    snk.put("transforms.cc.type", "io.ankusa.claimcheck.connect.Redeem$Value");
    servers.claimCheck("connect").forEach((k, v) -> snk.put("transforms.cc." + k, v));

    Connect connect =
        StandaloneWorkers.start(worker, file(dir, "source", src), file(dir, "sink", snk));
    try {
      assertValues(consume(source, new HashMap<>(servers.claimCheck("connect")),
          Values.SIZES.length), "CheckIn$Value -> ClaimCheckDeserializer");
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      Map<String, byte[]> got = new HashMap<>();
      while (got.size() < Values.SIZES.length && System.nanoTime() < deadline) {
        Thread.sleep(100);
        try (Stream<Path> files = Files.list(received)) {
          for (Path f : files.filter(f -> !f.toString().endsWith(".tmp")).toList()) {
            got.put(f.getFileName().toString(), Files.readAllBytes(f));
          }
        }
      }
      assertValues(got, "ClaimCheckSerializer -> Redeem$Value");
    } finally {
      connect.stop();
    }
  }

  /** A connector properties file, as {@code connect-standalone.sh} takes them. */
  private static String file(Path dir, String name, Map<String, String> config) throws IOException {
    Properties p = new Properties();
    p.putAll(config);
    Path f = dir.resolve(name + ".properties");
    try (var out = Files.newOutputStream(f)) {
      p.store(out, null);
    }
    return f.toString();
  }


  /** kafka-clients' own version file (AppInfoParser moved to an internal package in 4.4). */
  private static String clientsVersion() throws IOException {
    Properties p = new Properties();
    try (var in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      p.load(in);
    }
    return p.getProperty("version");
  }

  /** A plugin directory holding the test connectors (and what they use), as a worker expects. */
  private static Path connectorsPlugin(Path parent) throws IOException {
    Path dir = Files.createDirectories(parent.resolve("compat-connectors"));
    try (JarOutputStream jar =
        new JarOutputStream(Files.newOutputStream(dir.resolve("compat-connectors.jar")))) {
      for (Class<?> c : List.of(BytesSourceConnector.class, BytesSourceConnector.BytesTask.class,
          CollectingSinkConnector.class, CollectingSinkConnector.CollectingTask.class,
          Values.class)) {
        String name = c.getName().replace('.', '/') + ".class";
        jar.putNextEntry(new JarEntry(name));
        try (var in = c.getClassLoader().getResourceAsStream(name)) {
          in.transferTo(jar);
        }
        jar.closeEntry();
      }
      service(jar, "org.apache.kafka.connect.source.SourceConnector", BytesSourceConnector.class);
      service(jar, "org.apache.kafka.connect.sink.SinkConnector", CollectingSinkConnector.class);
    }
    return parent;
  }

  private static void service(JarOutputStream jar, String type, Class<?> impl) throws IOException {
    jar.putNextEntry(new JarEntry("META-INF/services/" + type));
    jar.write((impl.getName() + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    jar.closeEntry();
  }

  private static Path pluginPath() throws IOException {
    Path target = Path.of(System.getProperty("compat.plugin.parent"));
    try (Stream<Path> s = Files.list(target)) {
      return s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().endsWith("-plugin"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no " + target + "/*-plugin directory"));
    }
  }

  private static void createTopics(String... names) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrapServers()))) {
      admin
          .createTopics(
              Stream.of(names).map(n -> new NewTopic(n, 1, (short) 1)).collect(Collectors.toList()))
          .all()
          .get();
    }
  }

  private static void produce(String topic, Map<String, Object> cc) throws Exception {
    Map<String, Object> p = new HashMap<>(cc);
    p.put("bootstrap.servers", servers.bootstrapServers());
    p.put("acks", "all");
    p.put("max.request.size", "1048576");
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", ClaimCheckSerializer.class.getName());
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < Values.SIZES.length; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, Values.of(Values.SIZES[i], i))).get();
      }
    }
  }

  private static Map<String, byte[]> consume(String topic, Map<String, Object> cc, int n) {
    Map<String, Object> c = new HashMap<>(cc);
    c.put("bootstrap.servers", servers.bootstrapServers());
    c.put("group.id", "compat-" + UUID.randomUUID());
    c.put("auto.offset.reset", "earliest");
    Map<String, byte[]> got = new HashMap<>();
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", ClaimCheckDeserializer.class.getName());
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (got.size() < n && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          got.put(r.key(), r.value());
        }
      }
    }
    return got;
  }

  private static Map<String, ConsumerRecord<String, byte[]>> consumeRaw(String topic, int n) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", servers.bootstrapServers());
    c.put("group.id", "raw-" + UUID.randomUUID());
    c.put("auto.offset.reset", "earliest");
    Map<String, ConsumerRecord<String, byte[]>> got = new HashMap<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (got.size() < n && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          got.put(r.key(), r);
        }
      }
    }
    return got;
  }

  private static void assertValues(Map<String, byte[]> got, String path) {
    assertThat(got).as("%s on Kafka %s: records", path, VERSION).hasSize(Values.SIZES.length);
    for (int i = 0; i < Values.SIZES.length; i++) {
      assertThat(got.get("k" + i))
          .as("%s on Kafka %s: k%d (%d bytes)", path, VERSION, i, Values.SIZES[i])
          .isEqualTo(Values.of(Values.SIZES[i], i));
    }
  }

  private static byte[] reversed(byte[] b) {
    byte[] r = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      r[i] = b[b.length - 1 - i];
    }
    return r;
  }
}
