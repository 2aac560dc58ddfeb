package io.ankusa.claimcheck.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaIT {

  @Test
  void aRecordProducedIsConsumedThroughAConsumerGroup() throws Exception {
    EmbeddedKafka kafka = EmbeddedKafka.shared();
    assertThat(EmbeddedKafka.shared()).isSameAs(kafka);
    kafka.createTopic("testkit-round-trip", 3);
    kafka.createTopic("testkit-round-trip", 3); // exists: no error

    RecordMetadata sent;
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      sent = producer.send(new ProducerRecord<>("testkit-round-trip", "k", "hello")).get();
    }
    assertThat(sent.topic()).isEqualTo("testkit-round-trip");

    List<ConsumerRecord<String, String>> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "testkit-it",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of("testkit-round-trip"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (seen.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
      }
    }
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).key()).isEqualTo("k");
    assertThat(seen.get(0).value()).isEqualTo("hello");
    assertThat(seen.get(0).partition()).isEqualTo(sent.partition());
  }

  @Test
  void aRestartedBrokerKeepsItsPortsAndItsData() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopic("testkit-restart", 1);
      Map<String, Object> producerConfig =
          Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
        producer.send(new ProducerRecord<>("testkit-restart", "k1", "before")).get();
        kafka.stop();
        assertThat(kafka.isRunning()).isFalse();
        kafka.restart();
        assertThat(kafka.isRunning()).isTrue();
        // The producer that knew the broker before reconnects to the same address.
        producer.send(new ProducerRecord<>("testkit-restart", "k2", "after")).get();
      }
      List<String> seen = new ArrayList<>();
      try (KafkaConsumer<String, String> consumer =
          new KafkaConsumer<>(
              Map.of(
                  ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                  ConsumerConfig.GROUP_ID_CONFIG, "testkit-restart",
                  ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
              new StringDeserializer(),
              new StringDeserializer())) {
        consumer.subscribe(List.of("testkit-restart"));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (seen.size() < 2 && System.nanoTime() < deadline) {
          consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
        }
      }
      assertThat(seen).containsExactly("before", "after");
    }
  }
}
