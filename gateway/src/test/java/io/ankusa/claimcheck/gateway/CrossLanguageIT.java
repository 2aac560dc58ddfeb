package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records produced with the Java serializer on the embedded broker are redeemed through a running
 * gateway by the Python and the Node client, byte for byte (each client's integration test, run as
 * a child process as a user of that language would run it).
 */
class CrossLanguageIT {

  @TempDir static Path dir;
  static FaultProxy proxy;
  static Gateway gateway;
  static Path manifest;

  @BeforeAll
  static void produceAndStart() throws Exception {
    String bucket =
        EmbeddedS3.shared().createBucket("gwx-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    Map<String, Object> store = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    gateway = Gateway.start(store);
    TestGateways.awaitReady(gateway);

    String topic = "cross-language-" + UUID.randomUUID();
    EmbeddedKafka kafka = EmbeddedKafka.shared();
    kafka.createTopic(topic, 1);
    List<byte[]> payloads = new ArrayList<>();
    Random random = new Random(17);
    for (int size : new int[] {5_000, 100_000, 300_000}) {
      byte[] b = new byte[size];
      random.nextBytes(b);
      payloads.add(b);
    }
    payloads.add("compressible ".repeat(20_000).getBytes(StandardCharsets.UTF_8));
    for (String codec : new String[] {"none", "zstd"}) {
      Map<String, Object> p = new HashMap<>();
      store.forEach(
          (k, v) -> {
            if (k.startsWith("claimcheck.")) {
              p.put(k, v);
            }
          });
      p.put("claimcheck.tenant", "team-a");
      p.put("claimcheck.threshold.bytes", "1024");
      p.put("claimcheck.compression.type", codec);
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      ClaimCheckSerializer<byte[]> serializer =
          new ClaimCheckSerializer<>(new ByteArraySerializer());
      serializer.configure(p, false);
      try (KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(p, new ByteArraySerializer(), serializer)) {
        for (byte[] payload : payloads) {
          producer.send(new ProducerRecord<>(topic, payload)).get(60, TimeUnit.SECONDS);
        }
      }
    }

    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "cross-" + UUID.randomUUID());
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    StringBuilder json = new StringBuilder("{\"records\":[");
    int n = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (n < 2 * payloads.size() && System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          assertThat(r.value().length).as("a ref, not the payload").isLessThan(200);
          Path expected = dir.resolve("expected-" + n);
          Files.write(expected, payloads.get(n % payloads.size()));
          StringBuilder headers = new StringBuilder("[");
          for (Header h : r.headers()) {
            if (headers.length() > 1) {
              headers.append(',');
            }
            headers
                .append("[\"")
                .append(h.key())
                .append("\",")
                .append(h.value() == null ? "null" : "\"" + b64(h.value()) + "\"")
                .append(']');
          }
          headers.append(']');
          json.append(n == 0 ? "" : ",")
              .append("{\"value\":\"")
              .append(b64(r.value()))
              .append("\",\"headers\":")
              .append(headers)
              .append(",\"expected_file\":\"")
              .append(expected.toAbsolutePath())
              .append("\"}");
          n++;
        }
      }
    }
    assertThat(n).isEqualTo(2 * payloads.size());
    manifest = Files.writeString(dir.resolve("manifest.json"), json.append("]}").toString());
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  private static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  private static String run(Path workDir, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile());
    pb.environment().put("GATEWAY_URL", gateway.uri().toString());
    pb.environment().put("GATEWAY_TOKEN", TestGateways.TOKEN_A);
    pb.environment().put("CLAIMCHECK_MANIFEST", manifest.toString());
    pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    Path log = dir.resolve("child-" + UUID.randomUUID() + ".log");
    Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    assertThat(done).as("finished in time: %s", out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).doesNotContain(TestGateways.TOKEN_B);
    return out;
  }

  @Test
  void pythonRedeemsTheJavaRecordsByteForByte() throws Exception {
    String out = run(Path.of("..", "clients", "python"), "python3", "it_gateway.py");
    assertThat(out).as("every test ran").contains("Ran 3 tests").contains("\nOK");
  }

  @Test
  void nodeRedeemsTheJavaRecordsByteForByte() throws Exception {
    String out =
        run(
            Path.of("..", "clients", "node"),
            "node",
            "--test",
            "--test-reporter=spec",
            "it/gateway.test.js");
    assertThat(out).as("every test ran").contains("pass 3").contains("fail 0");
  }
}
