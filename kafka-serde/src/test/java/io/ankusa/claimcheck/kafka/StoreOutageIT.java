package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Stores down: failover loses nothing, a send fails clearly, a consumer never skips a record. */
class StoreOutageIT {

  private static final int LARGE = 300_000;
  private static FaultProxy proxyA;
  private static FaultProxy proxyB;
  private static String bucketA;
  private static String bucketB;

  @BeforeAll
  static void servers() {
    bucketA = Servers.s3().createBucket(Servers.unique("out-a"));
    bucketB = Servers.s3().createBucket(Servers.unique("out-b"));
    proxyA = FaultProxy.inFrontOf(Servers.s3());
    proxyB = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterEach
  void clear() {
    proxyA.clear();
    proxyB.clear();
  }

  @AfterAll
  static void stop() {
    proxyA.close();
    proxyB.close();
  }

  private static Map<String, Object> twoStores(int opDeadlineMs) {
    Map<String, Object> m = Servers.twoStores(proxyA, bucketA, proxyB, bucketB);
    m.put("claimcheck.store.op.deadline.ms", String.valueOf(opDeadlineMs));
    return m;
  }

  @Test
  void firstStoreDownForTheWholeRunLosesNothing() {
    proxyA.down();
    proxyB.resetCounts();
    String topic = Servers.unique("out");
    Servers.kafka().createTopic(topic, 1);
    int[] sizes = {LARGE, 5, 2 << 20, 100, LARGE + 7, 4 << 20, 1};
    Map<String, Object> cc = twoStores(10_000);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      for (int i = 0; i < sizes.length; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, Servers.payload(sizes[i], 100 + i)));
      }
      producer.flush();
    }
    assertThat(proxyB.requestCount("PUT")).isEqualTo(4);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(Servers.consumer(cc, Servers.unique("g")))) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, byte[]>> got =
          Servers.pollAll(consumer, sizes.length, Duration.ofSeconds(60));
      assertThat(got).hasSize(sizes.length);
      for (int i = 0; i < sizes.length; i++) {
        assertThat(got.get(i).value())
            .as("value %d", i)
            .isEqualTo(Servers.payload(sizes[i], 100 + i));
      }
    }
  }

  @Test
  void everyStoreDownFailsTheSendUnavailableWithinTheWriteDeadline() {
    proxyA.down();
    proxyB.hang(Duration.ofSeconds(30)); // one refuses connections, the other never answers
    String topic = Servers.unique("out");
    Servers.kafka().createTopic(topic, 1);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(Servers.producer(twoStores(1500)))) {
      long start = System.nanoTime();
      assertThatThrownBy(
              () -> producer.send(new ProducerRecord<>(topic, "k", Servers.payload(LARGE, 1))))
          .isInstanceOfSatisfying(
              ClaimCheckException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
                assertThat(e.getMessage())
                    .contains("store 0")
                    .contains("store 1")
                    .contains("it")
                    .doesNotContain(Servers.s3().secretKey());
              });
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took).isLessThan(Duration.ofMillis(1500 + 1000 + 500)); // write deadline + grace
      // Small values still go through: they never needed a store.
      producer.send(new ProducerRecord<>(topic, "small", new byte[] {1, 2, 3})).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aConsumerNeverSkipsARecordWhoseStoreIsDown() {
    String topic = Servers.unique("out");
    Servers.kafka().createTopic(topic, 1);
    Map<String, Object> cc = Servers.oneStore(proxyA, bucketA);
    byte[] big = Servers.payload(LARGE, 7);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      producer.send(new ProducerRecord<>(topic, "before", new byte[] {1}));
      producer.send(new ProducerRecord<>(topic, "big", big));
      producer.send(new ProducerRecord<>(topic, "after", new byte[] {2}));
      producer.flush();
    }
    proxyA.down();
    TopicPartition tp = new TopicPartition(topic, 0);
    Map<String, Object> consumerConfig = Servers.consumer(cc, Servers.unique("g"));
    // A store that refuses connections is retried until the read deadline: keep each try short.
    consumerConfig.put("claimcheck.read.deadline.ms", 1500);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerConfig)) {
      consumer.assign(List.of(tp));
      List<String> keys = new ArrayList<>();
      RecordDeserializationException failed = null;
      for (int attempt = 0; attempt < 3; attempt++) { // it keeps failing on the same record
        failed = null;
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (failed == null && System.nanoTime() < end) {
          try {
            consumer.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
          } catch (RecordDeserializationException e) {
            failed = e;
          }
        }
        assertThat(failed).as("attempt %d", attempt).isNotNull();
        assertThat(failed.offset()).isEqualTo(1);
        assertThat(ClaimCheckDeserializationExceptionHandler.claimFailure(failed).reason())
            .isEqualTo(Reason.UNAVAILABLE);
        consumer.seek(tp, failed.offset());
      }
      assertThat(keys).containsExactly("before");
      proxyA.up();
      consumer.seek(tp, failed.offset());
      // Back up, the record is read. A redeem still in the outage's shadow (a connection the
      // SDK's pool is still giving up on) may yet answer UNAVAILABLE: retriable, so do what an
      // application does — seek back and poll again — and never skip it.
      List<ConsumerRecord<String, byte[]>> rest = new ArrayList<>();
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (rest.size() < 2 && System.nanoTime() < end) {
        try {
          consumer.poll(Duration.ofMillis(200)).forEach(rest::add);
        } catch (RecordDeserializationException e) {
          assertThat(ClaimCheckDeserializationExceptionHandler.claimFailure(e).reason())
              .isEqualTo(Reason.UNAVAILABLE);
          consumer.seek(tp, e.offset());
        }
      }
      assertThat(rest).extracting(ConsumerRecord::key).containsExactly("big", "after");
      assertThat(rest.get(0).value()).isEqualTo(big);
    }
  }
}
