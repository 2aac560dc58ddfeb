package io.ankusa.claimcheck.examples;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The demo's two ends: a producer with {@link ClaimCheckSerializer} writing {@code demo-in} and a
 * consumer with {@link ClaimCheckDeserializer} reading {@code demo-out}; one thread uses it.
 */
final class Pipe implements AutoCloseable {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private final KafkaProducer<String, byte[]> producer;
  private final KafkaConsumer<String, byte[]> consumer;
  private int retriedPolls;

  private Pipe(KafkaProducer<String, byte[]> producer, KafkaConsumer<String, byte[]> consumer) {
    this.producer = producer;
    this.consumer = consumer;
  }

  static Pipe open(EmbeddedKafka kafka, Map<String, Object> claimcheck) {
    Map<String, Object> p = new HashMap<>(claimcheck);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    ClaimCheckSerializer<byte[]> serializer = new ClaimCheckSerializer<>();
    serializer.configure(claimcheck, false);
    Map<String, Object> c = new HashMap<>(claimcheck);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "claimcheck-demo-reader");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    ClaimCheckDeserializer<byte[]> deserializer = new ClaimCheckDeserializer<>();
    deserializer.configure(claimcheck, false);
    KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), serializer);
    return new Pipe(producer, new KafkaConsumer<>(c, new StringDeserializer(), deserializer));
  }

  /** Waits until Streams runs and the consumer has its partitions. */
  void awaitReady(KafkaStreams streams) throws InterruptedException {
    consumer.subscribe(List.of("demo-out"));
    long until = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < until
        && (streams.state() != KafkaStreams.State.RUNNING || consumer.assignment().isEmpty())) {
      consumer.poll(Duration.ofMillis(100));
    }
  }

  /** Sends {@code value} under {@code key}; returns the size of the record's value in Kafka. */
  int send(String key, byte[] value) throws Exception {
    return producer.send(new ProducerRecord<>("demo-in", key, value)).get().serializedValueSize();
  }

  /**
   * Polls until the record for {@code key} arrives; says whether it is {@code sent} reversed
   * ("identical"), "DIFFERENT" or "missing". A poll whose redeem fails (UNAVAILABLE: the claim may
   * still be readable) is retried: the consumer's position stays on that record.
   */
  String awaitReversed(String key, byte[] sent) {
    long until = System.nanoTime() + WAIT.toNanos();
    byte[] expected = reverse(sent);
    while (System.nanoTime() < until) {
      try {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(50))) {
          if (key.equals(r.key())) {
            return Arrays.equals(r.value(), expected) ? "identical" : "DIFFERENT";
          }
        }
      } catch (RecordDeserializationException e) {
        retriedPolls++;
      }
    }
    return "missing";
  }

  int retriedPolls() {
    return retriedPolls;
  }

  static byte[] reverse(byte[] value) {
    byte[] out = new byte[value.length];
    for (int i = 0; i < value.length; i++) {
      out[i] = value[value.length - 1 - i];
    }
    return out;
  }

  @Override
  public void close() {
    consumer.close();
    producer.close();
  }
}
