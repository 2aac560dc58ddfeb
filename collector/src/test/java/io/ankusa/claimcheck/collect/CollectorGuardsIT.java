package io.ankusa.claimcheck.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The collector's guards against a real KRaft broker and S3Proxy: a topic re-created during the
 * run, and a second deployment's keys under a prefix nested in ours. Both passed and deleted.
 */
class CollectorGuardsIT {

  private static final Clock LATER = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));

  private static String bucket;
  private static Admin admin;

  @BeforeAll
  static void start() {
    bucket = EmbeddedS3.shared().createBucket(unique("guards"));
    admin = Admin.create(Map.of("bootstrap.servers", EmbeddedKafka.shared().bootstrapServers()));
  }

  @AfterAll
  static void stop() {
    admin.close();
  }

  @Test
  void topicDeletedAndRecreatedWithTheSamePartitionsDuringTheRunDeletesNothing() throws Exception {
    String tenant = unique("t");
    String topic = unique("recreated");
    EmbeddedKafka.shared().createTopic(topic, 2);
    Map<String, Object> cc = config(tenant, "");
    ClaimRef named;
    ClaimRef orphan;
    try (ClaimCheck c = ClaimCheck.open(cc)) {
      named = c.checkIn(payload(1));
      orphan = c.checkIn(payload(2));
    }
    send(topic, RefCodec.encode(named));

    try (ClaimStore store = store(cc)) {
      GcReport report =
          Collector.create(kafka(), List.of(store), LATER, Ticker.system())
              .run(
                  GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic))).withDelete(true),
                  new Progress() {
                    @Override
                    public void listed(long packs) {
                      recreate(topic, 2);
                    }
                  });
      assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.ABORTED);
      assertThat(report.message())
          .contains("nothing deleted", "changed during the run", topic, "re-created");
      assertThat(report.deleted()).isEmpty();
      assertThat(exists(store, KeyLayout.FLAT.key(tenant, orphan.packId().value()))).isTrue();
      assertThat(exists(store, KeyLayout.FLAT.key(tenant, named.packId().value()))).isTrue();
    }
  }

  /**
   * A second deployment at {@code s3://bucket/dep/<our tenant>} with tenant {@code ab} at the flat
   * layout: its key {@code ab/ab…} is, seen from our {@code s3://bucket/dep}, our tenant's sharded
   * key {@code <tenant>/ab/ab…}; the collector took it for an unreferenced pack of ours.
   */
  @Test
  void aSecondDeploymentNestedUnderOurTenantKeepsEveryKeyEvenOneThatParsesAsOurs()
      throws Exception {
    String tenant = unique("t");
    String topic = unique("nested");
    EmbeddedKafka.shared().createTopic(topic, 1);
    Map<String, Object> ours = config(tenant, "/dep");
    Map<String, Object> theirs = config("ab", "/dep/" + tenant);
    ClaimRef named;
    ClaimRef orphan;
    try (ClaimCheck c = ClaimCheck.open(ours)) {
      named = c.checkIn(payload(1));
      orphan = c.checkIn(payload(2));
    }
    send(topic, RefCodec.encode(named));
    ClaimRef foreign;
    try (ClaimCheck c = ClaimCheck.open(theirs)) {
      foreign = c.checkIn(payload(3)); // a real pack of theirs, id random
    }
    String lookalike = KeyLayout.FLAT.key("ab", 0xab0000000000abcdL); // its shard is their tenant
    try (ClaimStore theirStore = store(theirs);
        ClaimStore ourStore = store(ours)) {
      theirStore.putIfAbsent(lookalike, payload(4), Duration.ofSeconds(10)).get();
      String other = KeyLayout.FLAT.key("ab", 0x12000000000000efL); // and one of another shard
      theirStore.putIfAbsent(other, payload(5), Duration.ofSeconds(10)).get();
      String foreignKey = KeyLayout.FLAT.key("ab", foreign.packId().value());

      GcReport report =
          Collector.create(kafka(), List.of(ourStore), LATER, Ticker.system())
              .run(
                  GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic))).withDelete(true),
                  Progress.NONE);

      assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
      assertThat(report.deleted()).extracting(StoredPack::packId).containsExactly(orphan.packId());
      assertThat(report.message()).contains("passed over 1 shard", "store 0 " + tenant + "/ab/");
      assertThat(exists(theirStore, lookalike)).as("the look-alike key").isTrue();
      assertThat(exists(theirStore, foreignKey)).isTrue();
      assertThat(exists(theirStore, other)).isTrue();
      assertThat(exists(ourStore, KeyLayout.FLAT.key(tenant, named.packId().value()))).isTrue();
    }
  }

  // --- helpers

  private static void recreate(String topic, int partitions) {
    try {
      admin.deleteTopics(Set.of(topic)).all().get(60, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (true) {
        try {
          admin
              .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
              .all()
              .get(60, TimeUnit.SECONDS);
          break;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(200); // the deletion is still under way in the broker
        }
      }
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> all =
          new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        all.put(
            new org.apache.kafka.common.TopicPartition(topic, p),
            org.apache.kafka.clients.admin.OffsetSpec.latest());
      }
      while (true) { // until the broker serves the new topic's partitions (as after a creation)
        try {
          admin.listOffsets(all).all().get(60, TimeUnit.SECONDS);
          break;
        } catch (ExecutionException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(200);
        }
      }
    } catch (Exception e) {
      throw new AssertionError("could not re-create " + topic, e);
    }
  }

  private static Map<String, Object> config(String tenant, String prefix) {
    Map<String, Object> m = EmbeddedS3.shared().claimCheckConfig("s3://" + bucket + prefix);
    m.put("claimcheck.tenant", tenant);
    m.put("claimcheck.key.layout", "flat");
    m.put("claimcheck.threshold.bytes", "1");
    return m;
  }

  private static ClaimStore store(Map<String, Object> config) {
    return new ClaimCheckConfig(config).stores().get(0).open();
  }

  private static Map<String, Object> kafka() {
    return Map.of("bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
  }

  private static void send(String topic, byte[] value) throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, value);
      r.headers().add("ankusa.claimcheck.value", new byte[] {'1'});
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
  }

  private static boolean exists(ClaimStore store, String key) throws Exception {
    try {
      store.getRange(key, 0, 1, Duration.ofSeconds(10)).get();
      return true;
    } catch (ExecutionException e) {
      if (StoreException.of(e).kind() != StoreException.Kind.NOT_FOUND) {
        throw e;
      }
      return false;
    }
  }

  private static byte[] payload(int i) {
    return ("guard-payload-" + i + "-" + "z".repeat(100 + i)).getBytes(StandardCharsets.UTF_8);
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
