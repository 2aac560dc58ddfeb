package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Producer to consumer through the claim-check serde against a Kafka broker and a MinIO server in
 * containers; skipped where no Docker engine runs (the embedded-server ITs cover the same here).
 */
@Testcontainers(disabledWithoutDocker = true)
class ContainersIT {

  @Container private static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.0");

  @Container
  private static final MinIOContainer MINIO =
      new MinIOContainer("minio/minio:RELEASE.2025-04-22T22-12-26Z");

  @Test
  void largeAndSmallValuesRoundTripThroughKafkaAndMinio() {
    URI endpoint = URI.create(MINIO.getS3URL());
    try (S3AsyncClient admin =
        S3AsyncClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(MINIO.getUserName(), MINIO.getPassword())))
            .build()) {
      admin.createBucket(b -> b.bucket("claims")).join();
    }
    Map<String, Object> cc = new HashMap<>();
    cc.put("claimcheck.stores", "s3://claims/containers");
    cc.put("claimcheck.s3.endpoint", endpoint.toString());
    cc.put("claimcheck.s3.path.style.access", "true");
    cc.put("claimcheck.s3.access.key.id", MINIO.getUserName());
    cc.put("claimcheck.s3.secret.access.key", MINIO.getPassword());
    cc.put("claimcheck.threshold.bytes", 10_000);

    List<byte[]> sent = new ArrayList<>();
    Map<String, Object> p = new HashMap<>(cc);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
      Random random = new Random(1);
      for (int size : new int[] {10, 9_999, 10_000, 3 << 20}) {
        byte[] v = new byte[size];
        random.nextBytes(v);
        sent.add(v);
        producer.send(new ProducerRecord<>("containers", "k" + sent.size(), v));
      }
      producer.flush();
    }
    Map<String, Object> c = new HashMap<>(cc);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "containers");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ClaimCheckDeserializer.class);
    List<byte[]> got = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of("containers"));
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (got.size() < sent.size() && System.nanoTime() < until) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          got.add(r.value());
        }
      }
    }
    assertThat(got).containsExactlyElementsOf(sent);
  }
}
