package io.ankusa.claimcheck.examples;

import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The demo's hand-off to the claim gateway ({@code --serve}): once the failover demo has run, it
 * writes a {@code gateway.properties} and a tokens file for the demo's own S3 server, and a copy of
 * one value the producer checked in, then prints the command that starts the gateway jar on them
 * and the {@code curl} that redeems that value's ref (read raw from {@code demo-in}) through it.
 * Not thread-safe; the demo's main thread uses it.
 */
final class GatewayDemo {

  /** The token the written tokens file grants (its SHA-256 is what the file holds). */
  static final String TOKEN = "demo-token";

  /** Where the gateway listens, as the written properties say. */
  static final String LISTEN = "127.0.0.1:8080";

  /** The value whose ref is printed: the last one, 4 MiB, a ref in Kafka. */
  static final int VALUE = 14;

  /**
   * What the demo wrote and printed: the properties file, the command that starts the gateway on
   * it, and the {@code curl} line that redeems {@code ref} and compares it with {@code valueFile}.
   */
  record Handoff(Path properties, String command, String curl, String ref, Path valueFile) {}

  private GatewayDemo() {}

  /**
   * The folder the hand-off goes to: {@code examples/target/demo-gateway} from the repository's
   * root (where the README runs the demo), else {@code target/demo-gateway}.
   */
  static Path dir() {
    return Files.isRegularFile(Path.of("examples", "pom.xml"))
        ? Path.of("examples", "target", "demo-gateway")
        : Path.of("target", "demo-gateway");
  }

  /** Writes the gateway's files into {@code dir} for {@code s3}, and finds the printed ref. */
  static Handoff write(EmbeddedKafka kafka, EmbeddedS3 s3, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path tokens = dir.resolve("tokens.txt");
    Files.writeString(
        tokens,
        "# <SHA-256 of the token> <tenant> <rights>: the token is \""
            + TOKEN
            + "\" (a demo: never write a real token down)\n"
            + sha256(TOKEN.getBytes(StandardCharsets.UTF_8))
            + " demo read,write\n");
    Path properties = dir.resolve("gateway.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "# The claim gateway on the demo's S3 server, written by the demo (--serve).",
            "claimcheck.stores=" + FailoverDemo.STORES,
            "claimcheck.s3.endpoint=" + s3.endpoint(),
            "claimcheck.s3.region=" + s3.region(),
            "claimcheck.s3.path.style.access=true",
            "claimcheck.s3.access.key.id=" + s3.accessKey(),
            "claimcheck.s3.secret.access.key=" + s3.secretKey(),
            "claimcheck.tenant=demo",
            "claimcheck.max.concurrent.reads=256",
            "# Plain HTTP on loopback, for the demo only: a real gateway serves TLS.",
            "gateway.tls.enabled=false",
            "gateway.listen=" + LISTEN,
            "gateway.tokens.file=" + tokens.toAbsolutePath(),
            ""));
    Path valueFile = dir.resolve(FailoverDemo.key(VALUE) + ".bin");
    Files.write(valueFile, FailoverDemo.values().get(VALUE));
    String ref = Base64.getUrlEncoder().withoutPadding().encodeToString(rawValue(kafka));
    String command = "java -jar gateway/target/claimcheck-gateway.jar --config " + properties;
    String curl =
        "curl -s -H 'Authorization: Bearer "
            + TOKEN
            + "' http://"
            + LISTEN
            + "/v1/claims/"
            + ref
            + " | cmp - "
            + valueFile
            + " && echo identical";
    return new Handoff(properties, command, curl, ref, valueFile);
  }

  /** Prints how to start the gateway on the hand-off and redeem its ref. */
  static void print(Handoff h) {
    System.out.printf(
        "%n--- The claim gateway: the same claims over HTTP ---%n"
            + "The servers stay up. In another terminal, from this folder, start the gateway:%n"
            + "  %s%n"
            + "and redeem value %s (%,d B; a ref in demo-in) through it, byte for byte:%n"
            + "  %s%n"
            + "Press Enter here to stop the servers.%n",
        h.command(), FailoverDemo.key(VALUE), FailoverDemo.values().get(VALUE).length, h.curl());
    System.out.flush();
  }

  /**
   * Waits for a line on standard input; when there is none to read (input closed, as under a
   * script), until the process is stopped.
   */
  static void awaitStop() throws IOException, InterruptedException {
    InputStream in = System.in;
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      // wait for Enter
    }
    if (c < 0) {
      new CountDownLatch(1).await();
    }
  }

  /** The record value of key {@link #VALUE} in {@code demo-in} as it is in Kafka: the ref. */
  private static byte[] rawValue(EmbeddedKafka kafka) {
    Map<String, Object> c =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest");
    String key = FailoverDemo.key(VALUE);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor("demo-in")) {
        partitions.add(new TopicPartition(p.topic(), p.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < end) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (key.equals(r.key())) {
            return r.value();
          }
        }
      }
    }
    throw new IllegalStateException("no record " + key + " in demo-in");
  }

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
