package io.ankusa.claimcheck.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example application, configured by its {@code application.properties} alone (only where the
 * servers are is passed as arguments), sends values of 1 KiB to 8 MiB through a topic whose records
 * may not exceed 1 MiB: every value arrives at its listener byte for byte, the large ones having
 * travelled as small refs; all on the kafka-clients version Spring Boot chose, one without {@code
 * Monitorable} (before 4.1). The broker and the S3 server run in a child JVM.
 */
class SpringBootClaimCheckIT {

  /** The bucket {@code claimcheck.stores} names in application.properties. */
  private static final String BUCKET = "claims";

  private static final String TOPIC = "large-values";

  @Test
  void largeValuesArriveIdenticalAndTravelAsRefsOnBootsKafkaClients() throws Exception {
    // The clients under test are Boot's (3.9.x for Boot 3.5), not the 4.4 the library builds with.
    assertThat(AppInfoParser.getVersion()).as("kafka-clients on the class path").startsWith("3.9.");
    assertThatThrownBy(() -> Class.forName("org.apache.kafka.common.metrics.Monitorable"))
        .isInstanceOf(ClassNotFoundException.class);

    Random random = new Random(9);
    Map<String, byte[]> sent = new LinkedHashMap<>();
    sent.put("small-1KiB", bytes(random, 1024));
    sent.put("large-3MiB", bytes(random, 3 << 20));
    sent.put("large-8MiB+5", bytes(random, (8 << 20) + 5));

    try (ServersProcess servers = ServersProcess.start(BUCKET);
        ConfigurableApplicationContext app =
            new SpringApplicationBuilder(ClaimCheckExampleApplication.class)
                .main(ClaimCheckExampleApplication.class)
                .run(
                    "--spring.kafka.bootstrap-servers=" + servers.bootstrapServers(),
                    "--spring.kafka.properties.claimcheck.s3.endpoint=" + servers.s3Endpoint(),
                    "--spring.kafka.properties.claimcheck.s3.region=" + servers.region(),
                    "--spring.kafka.properties.claimcheck.s3.path.style.access=true",
                    "--spring.kafka.properties.claimcheck.s3.access.key.id=" + servers.accessKey(),
                    "--spring.kafka.properties.claimcheck.s3.secret.access.key="
                        + servers.secretKey())) {
      LargeValues values = app.getBean(LargeValues.class);
      for (Map.Entry<String, byte[]> e : sent.entrySet()) {
        values.send(e.getKey(), e.getValue()).get(30, TimeUnit.SECONDS);
      }

      // The listener got every value back, byte for byte.
      Map<String, byte[]> received = new LinkedHashMap<>();
      while (received.size() < sent.size()) {
        ConsumerRecord<String, byte[]> r = values.received().poll(30, TimeUnit.SECONDS);
        assertThat(r)
            .as("a record within 30 s; received so far: %s", received.keySet())
            .isNotNull();
        received.put(r.key(), r.value());
      }
      assertThat(received.keySet()).containsExactlyElementsOf(sent.keySet());
      for (Map.Entry<String, byte[]> e : sent.entrySet()) {
        byte[] got = received.get(e.getKey());
        assertThat(got.length).as("%s length", e.getKey()).isEqualTo(e.getValue().length);
        assertThat(Arrays.mismatch(got, e.getValue()))
            .as("%s: first differing byte (-1: identical)", e.getKey())
            .isEqualTo(-1);
      }

      // The large values are far above what the topic takes in one record ...
      long maxMessageBytes = topicMaxMessageBytes(servers.bootstrapServers());
      for (Map.Entry<String, byte[]> e : sent.entrySet()) {
        if (e.getKey().startsWith("large")) {
          assertThat((long) e.getValue().length).as(e.getKey()).isGreaterThan(maxMessageBytes);
        }
      }

      // ... so on the topic they are marked refs of under 100 bytes; the small one is inline.
      List<ConsumerRecord<String, byte[]>> stored =
          rawRecords(servers.bootstrapServers(), sent.size());
      assertThat(stored).extracting(ConsumerRecord::key).containsExactlyElementsOf(sent.keySet());
      for (ConsumerRecord<String, byte[]> raw : stored) {
        boolean marked = raw.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null;
        if (raw.key().startsWith("large")) {
          assertThat(raw.value().length).as("%s on the topic", raw.key()).isLessThan(100);
          assertThat(marked).as("%s carries the ref marker", raw.key()).isTrue();
        } else {
          assertThat(raw.value()).as("%s travels inline", raw.key()).isEqualTo(sent.get(raw.key()));
          assertThat(marked).as("%s carries no marker", raw.key()).isFalse();
        }
      }
    }
  }

  private static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static long topicMaxMessageBytes(String bootstrap) throws Exception {
    Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(config)) {
      ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
      return Long.parseLong(
          admin
              .describeConfigs(List.of(topic))
              .all()
              .get(30, TimeUnit.SECONDS)
              .get(topic)
              .get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG)
              .value());
    }
  }

  /** The topic's records as stored: plain bytes, nothing redeemed. */
  private static List<ConsumerRecord<String, byte[]>> rawRecords(String bootstrap, int count) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      TopicPartition partition = new TopicPartition(TOPIC, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
    }
    assertThat(records).as("the topic's records").hasSize(count);
    return records;
  }
}
