package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A share-group consumer takes the claim-check deserializer by class name, with no special case.
 */
class ShareConsumerIT {

  private static FaultProxy proxy;
  private static String bucket;

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("share"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void aShareConsumerRedeemsRefs() throws Exception {
    String topic = Servers.unique("share");
    String group = Servers.unique("sg");
    Servers.kafka().createTopic(topic, 1);
    try (Admin admin =
        Admin.create(Map.of("bootstrap.servers", Servers.kafka().bootstrapServers()))) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.GROUP, group),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("share.auto.offset.reset", "earliest"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();
    }
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    int[] sizes = {3, 300_000, 10, 1 << 20};
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      for (int i = 0; i < sizes.length; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, Servers.payload(sizes[i], 40 + i)));
      }
      producer.flush();
    }
    Map<String, Object> config = new HashMap<>(cc);
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    config.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ClaimCheckDeserializer.class.getName());
    Map<String, byte[]> got = new HashMap<>();
    try (KafkaShareConsumer<String, byte[]> consumer = new KafkaShareConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (got.size() < sizes.length && System.nanoTime() < end) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          got.put(r.key(), r.value());
        }
        consumer.commitSync();
      }
    }
    assertThat(got).hasSize(sizes.length);
    for (int i = 0; i < sizes.length; i++) {
      assertThat(got.get("k" + i)).as("value %d", i).isEqualTo(Servers.payload(sizes[i], 40 + i));
    }
  }
}
