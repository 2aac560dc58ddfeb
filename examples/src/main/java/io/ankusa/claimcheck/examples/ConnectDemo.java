package io.ankusa.claimcheck.examples;

import io.ankusa.claimcheck.connect.CheckIn;
import io.ankusa.claimcheck.connect.Redeem;
import io.ankusa.claimcheck.examples.DemoSinkConnector.Received;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The Connect demo: {@link DemoSourceConnector} emits values from 10 bytes to 3 MiB through the
 * {@code CheckIn$Value} transform; a plain consumer reads the topic with {@link
 * ClaimCheckDeserializer} and {@link DemoSinkConnector} reads it through {@code Redeem$Value}; both
 * check every byte. A Kafka Connect standalone worker, a KRaft broker and an S3 server (S3Proxy)
 * run in this JVM.
 */
final class ConnectDemo {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** What one run saw: records sent, read by the consumer, received by the sink; all identical. */
  record Outcome(int sent, int consumed, int sunk, boolean allIdentical) {}

  private ConnectDemo() {}

  /** Runs the Connect demo on its own broker and S3 server; returns whether all was identical. */
  static boolean run() throws Exception {
    System.out.println("Starting a Kafka broker and an S3 server in this JVM...");
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedS3 s3 = EmbeddedS3.start()) {
      return run(kafka, s3).allIdentical();
    }
  }

  /** Runs the Connect demo on {@code kafka} and {@code s3}, on a topic and bucket of its own. */
  static Outcome run(EmbeddedKafka kafka, EmbeddedS3 s3) throws Exception {
    String id = UUID.randomUUID().toString().substring(0, 8);
    String topic = "connect-demo-" + id;
    kafka.createTopic(topic, 1);
    Map<String, String> claimcheck =
        Demo.claimCheckSettings(s3, s3.createBucket("connect-demo-" + id));
    long start = System.nanoTime();
    try (ConnectWorker worker = ConnectWorker.start(kafka.bootstrapServers())) {
      System.out.printf(
          "a standalone worker in this JVM (up in %.1f s): DemoSourceConnector + CheckIn$Value"
              + " -> Kafka%n  -> a KafkaConsumer with ClaimCheckDeserializer, and"
              + " DemoSinkConnector + Redeem$Value%n%n",
          (System.nanoTime() - start) / 1e9);
      worker.createConnector(
          "demo-source-" + id,
          connector(DemoSourceConnector.class, CheckIn.Value.class, claimcheck, "topic", topic));
      worker.createConnector(
          "demo-sink-" + id,
          connector(DemoSinkConnector.class, Redeem.Value.class, claimcheck, "topics", topic));
      List<ConsumerRecord<String, byte[]>> consumed = consume(kafka, claimcheck, topic);
      List<Received> sunk = awaitSink(topic);
      return report(consumed, sunk);
    }
  }

  private static Map<String, String> connector(
      Class<?> connector,
      Class<?> transform,
      Map<String, String> claimcheck,
      String topicKey,
      String topic) {
    Map<String, String> config = new HashMap<>();
    config.put("connector.class", connector.getName());
    config.put("tasks.max", "1");
    config.put(topicKey, topic);
    config.put("transforms", "cc");
    config.put("transforms.cc.type", transform.getName());
    claimcheck.forEach((k, v) -> config.put("transforms.cc." + k, v));
    return config;
  }

  private static List<ConsumerRecord<String, byte[]>> consume(
      EmbeddedKafka kafka, Map<String, String> claimcheck, String topic) {
    Map<String, Object> c = new HashMap<>(claimcheck);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-reader");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ClaimCheckDeserializer.class.getName());
    List<ConsumerRecord<String, byte[]>> got = new ArrayList<>();
    long until = System.nanoTime() + WAIT.toNanos();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(topic));
      while (got.size() < DemoSourceConnector.SIZES.length && System.nanoTime() < until) {
        consumer.poll(Duration.ofMillis(200)).forEach(got::add);
      }
    }
    return got;
  }

  private static List<Received> awaitSink(String topic) throws InterruptedException {
    long until = System.nanoTime() + WAIT.toNanos();
    while (DemoSinkConnector.received(topic).size() < DemoSourceConnector.SIZES.length
        && System.nanoTime() < until) {
      Thread.sleep(100);
    }
    return DemoSinkConnector.received(topic);
  }

  private static Outcome report(
      List<ConsumerRecord<String, byte[]>> consumed, List<Received> sunk) {
    int n = DemoSourceConnector.SIZES.length;
    int consumerOk = 0;
    int sinkOk = 0;
    System.out.printf(
        "%-14s %12s   %-28s %-11s %s%n", "key", "payload", "on the wire", "consumer", "sink");
    for (int i = 0; i < n; i++) {
      String key = DemoSourceConnector.key(i);
      byte[] expected = DemoSourceConnector.payload(i);
      boolean shouldBeRef = expected.length >= Demo.THRESHOLD;
      ConsumerRecord<String, byte[]> r = find(consumed, key);
      String wire = "missing";
      String atConsumer = "missing";
      if (r != null) {
        boolean ref = r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null;
        boolean same = Arrays.equals(r.value(), expected);
        wire =
            String.format(
                "%-7s record of %,d B", ref ? "ref," : "inline,", r.serializedValueSize());
        atConsumer =
            !same
                ? "DIFFERENT"
                : ref == shouldBeRef
                    ? "identical"
                    : ref ? "identical, but a ref" : "identical, not a ref";
        consumerOk += same && ref == shouldBeRef ? 1 : 0;
      }
      Received s = sunk.stream().filter(x -> x.key().equals(key)).findFirst().orElse(null);
      String atSink =
          s == null ? "missing" : Arrays.equals(s.value(), expected) ? "identical" : "DIFFERENT";
      sinkOk += "identical".equals(atSink) ? 1 : 0;
      System.out.printf(
          "%-14s %,10d B   %-28s %-11s %s%n", key, expected.length, wire, atConsumer, atSink);
    }
    System.out.printf(
        "%n%d/%d values identical at the consumer, %d/%d at the sink connector%n",
        consumerOk, n, sinkOk, n);
    boolean all = consumed.size() == n && sunk.size() == n && consumerOk == n && sinkOk == n;
    return new Outcome(n, consumed.size(), sunk.size(), all);
  }

  private static ConsumerRecord<String, byte[]> find(
      List<ConsumerRecord<String, byte[]>> records, String key) {
    return records.stream().filter(r -> key.equals(r.key())).findFirst().orElse(null);
  }
}
