package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kafkajs example ({@code clients/node/examples/kafkajs/consumer.js}) as a Node user runs it:
 * the Java serializer produces claim-checked records (uncompressed and zstd refs, and inline
 * values) on the embedded broker; the example consumes them with kafkajs 2.2.4 (installed by {@code
 * npm ci} from the committed lock file), redeems each ref through a running gateway and prints each
 * payload's SHA-256, which must be the produced payload's, byte for byte.
 *
 * <p>Skipped (a JUnit assumption, with the reason) only when {@code node} or {@code npm} is not on
 * the PATH; a failing {@code npm ci} fails the test.
 */
class KafkajsConsumerIT {

  static final Path EXAMPLE = Path.of("..", "clients", "node", "examples", "kafkajs");

  @TempDir Path dir;

  private static boolean onPath(String command) {
    try {
      Process p = new ProcessBuilder(command, "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  private String run(Map<String, String> env, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(EXAMPLE.toFile());
    pb.environment().putAll(env);
    Path log = dir.resolve("child-" + UUID.randomUUID() + ".log");
    Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    assertThat(done).as("%s finished in time: %s", command[0], out).isTrue();
    assertThat(p.exitValue()).as("%s: %s", String.join(" ", command), out).isZero();
    return out;
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  @Test
  void theKafkajsExampleRedeemsTheJavaRecordsThroughTheGatewayByteForByte() throws Exception {
    assumeTrue(onPath("node"), "node is not on the PATH: the kafkajs example cannot run here");
    assumeTrue(onPath("npm"), "npm is not on the PATH: kafkajs cannot be installed here");
    if (!Files.isDirectory(EXAMPLE.resolve("node_modules").resolve("kafkajs"))) {
      run(Map.of(), "npm", "ci", "--no-audit", "--no-fund");
    }

    String bucket =
        EmbeddedS3.shared().createBucket("gwk-" + UUID.randomUUID().toString().substring(0, 8));
    try (FaultProxy proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
        Gateway gateway =
            Gateway.start(TestGateways.config(proxy, bucket, TestGateways.tokens(dir)))) {
      TestGateways.awaitReady(gateway);
      EmbeddedKafka kafka = EmbeddedKafka.shared();
      String topic = "kafkajs-" + UUID.randomUUID();
      kafka.createTopic(topic, 2);

      List<byte[]> payloads = new ArrayList<>();
      Random random = new Random(23);
      for (int size : new int[] {200, 5_000, 300_000, 1 << 20}) {
        byte[] b = new byte[size];
        random.nextBytes(b);
        payloads.add(b);
      }
      payloads.add("compressible ".repeat(40_000).getBytes(StandardCharsets.UTF_8));
      List<String> expected = new ArrayList<>();
      int refs = 0;
      for (String codec : new String[] {"none", "zstd"}) {
        Map<String, Object> p = new HashMap<>();
        TestGateways.config(proxy, bucket, dir)
            .forEach(
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
            int wire =
                producer
                    .send(new ProducerRecord<>(topic, payload))
                    .get(60, TimeUnit.SECONDS)
                    .serializedValueSize();
            boolean ref = payload.length >= 1024;
            assertThat(wire < payload.length).as("checked in: a ref on the wire").isEqualTo(ref);
            refs += ref ? 1 : 0;
            expected.add((ref ? "ref" : "inline") + " " + payload.length + " " + sha256(payload));
          }
        }
      }

      Map<String, String> env = new HashMap<>();
      env.put("BROKERS", kafka.bootstrapServers());
      env.put("TOPIC", topic);
      env.put("GROUP", "kafkajs-" + UUID.randomUUID());
      env.put("GATEWAY_URL", gateway.uri().toString());
      env.put("GATEWAY_TOKEN", TestGateways.TOKEN_A);
      env.put("EXPECT", Integer.toString(2 * payloads.size()));
      env.put("TIMEOUT_MS", "180000");
      String out = run(env, "node", "consumer.js");

      List<String> got = new ArrayList<>();
      int lines = 0;
      for (String line : out.split("\n")) {
        if (line.startsWith("record ")) {
          String[] f = line.strip().split(" ");
          got.add(f[3] + " " + f[4] + " " + f[5]);
          lines++;
        }
      }
      Collections.sort(expected);
      Collections.sort(got);
      assertThat(refs).as("refs produced").isEqualTo(8);
      assertThat(lines).as("messages the example handled: %s", out).isEqualTo(2 * payloads.size());
      assertThat(got).as("kind, length and SHA-256 of each payload: %s", out).isEqualTo(expected);
      assertThat(out).doesNotContain("dead letter").doesNotContain(TestGateways.TOKEN_A);
    }
  }
}
