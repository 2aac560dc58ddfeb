package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A plain producer and consumer configured by class name, against a real broker and S3 server. */
class ProducerConsumerIT {

  private static final int MIB = 1 << 20;
  private static final int THRESHOLD = 262_144;
  private static FaultProxy proxy;
  private static String bucket;

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("pc"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void mixedSizesArriveByteIdenticalAndSmallValuesNeverTouchTheStore() {
    String topic = Servers.unique("pc");
    Servers.kafka().createTopic(topic, 1);
    int[] sizes = {
      1,
      10,
      1000,
      65_536,
      THRESHOLD - 1,
      THRESHOLD,
      THRESHOLD + 1,
      700_000,
      MIB,
      5 * MIB,
      20 * MIB,
      2,
      100_000
    };
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    proxy.resetCounts();
    int large = 0;
    int puts = 0;
    int multipart = 0;
    Map<String, Object> producerConfig = Servers.producer(cc);
    producerConfig.put(
        org.apache.kafka.clients.producer.ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        ClaimCheckSerializer.Monitored.class.getName()); // its counts are the producer's metrics
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerConfig)) {
      for (int i = 0; i < sizes.length; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, Servers.payload(sizes[i], i)));
        large += sizes[i] >= THRESHOLD ? 1 : 0;
        puts += sizes[i] >= THRESHOLD ? Servers.putRequests(sizes[i]) : 0;
        multipart += sizes[i] >= THRESHOLD && Servers.putRequests(sizes[i]) > 1 ? 1 : 0;
      }
      producer.flush();
      assertThat(pluginMetric(producer.metrics(), "claimcheck-claimed-total")).isEqualTo(large);
      assertThat(pluginMetric(producer.metrics(), "claimcheck-inline-total"))
          .isEqualTo(sizes.length - large);
    }
    assertThat(proxy.requestCount("PUT")).isEqualTo(puts);

    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(monitored(Servers.consumer(cc, Servers.unique("g"))))) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, byte[]>> got =
          Servers.pollAll(consumer, sizes.length, Duration.ofSeconds(60));
      assertThat(got).hasSize(sizes.length);
      for (int i = 0; i < sizes.length; i++) {
        ConsumerRecord<String, byte[]> r = got.get(i);
        assertThat(r.key()).isEqualTo("k" + i);
        assertThat(r.value())
            .as("value %d (%d bytes)", i, sizes[i])
            .isEqualTo(Servers.payload(sizes[i], i));
        assertThat(r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null)
            .as("marker on value %d", i)
            .isEqualTo(sizes[i] >= THRESHOLD);
      }
      assertThat(pluginMetric(consumer.metrics(), "claimcheck-claimed-total")).isEqualTo(large);
    }
    // Only check-ins and redeems reached the store: one PUT (or one per multipart part) and at
    // most one GET per large value.
    assertThat(proxy.requestCount("PUT")).isEqualTo(puts);
    assertThat(proxy.requestCount("GET")).isBetween(1L, (long) large);
    assertThat(proxy.requestCount("POST"))
        .as("create + complete per multipart upload")
        .isEqualTo(2L * multipart);
    assertThat(proxy.requestCount("HEAD") + proxy.requestCount("DELETE")).isZero();
  }

  /** The Monitorable variant (kafka-clients 4.1+), whose counts are the consumer's metrics. */
  private static Map<String, Object> monitored(Map<String, Object> consumer) {
    consumer.put(
        org.apache.kafka.clients.consumer.ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        ClaimCheckDeserializer.Monitored.class.getName());
    return consumer;
  }

  private static double pluginMetric(Map<MetricName, ? extends Metric> metrics, String name) {
    Map<String, Double> found = new TreeMap<>();
    metrics.forEach(
        (k, v) -> {
          if (k.name().equals(name)) {
            found.put(k.tags().toString(), (Double) v.metricValue());
          }
        });
    assertThat(found).as("plugin metric %s", name).hasSize(1);
    return found.values().iterator().next();
  }
}
