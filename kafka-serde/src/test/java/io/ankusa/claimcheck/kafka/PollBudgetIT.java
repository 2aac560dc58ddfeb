package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A hung store cannot push a consumer out of its group: with {@code max.poll.interval.ms} = 6 s and
 * the default ratio 0.5, every poll's redeems give up after 3 s, UNAVAILABLE.
 */
class PollBudgetIT {

  private static final int REFS = 20;

  /** The consumer's max.poll.interval.ms: short, so that being stuck longer takes little time. */
  private static final int MAX_POLL_INTERVAL_MS = 6_000;

  private static FaultProxy proxy;
  private static String bucket;

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("budget"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void aHungStoreKeepsTheConsumerInItsGroup() throws Exception {
    String topic = Servers.unique("budget");
    Servers.kafka().createTopic(topic, 1);
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    cc.put("claimcheck.threshold.bytes", "1000");
    // Store and read deadlines both longer than max.poll.interval.ms: only the budget saves the
    // member.
    cc.put("claimcheck.store.op.deadline.ms", "8000");
    cc.put("claimcheck.read.deadline.ms", "12000");
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      producer.send(new ProducerRecord<>(topic, "small", new byte[] {42}));
      for (int i = 0; i < REFS; i++) {
        producer.send(new ProducerRecord<>(topic, "ref" + i, Servers.payload(2000, 500 + i)));
      }
      producer.flush();
    }
    Map<String, Object> config = Servers.consumer(cc, Servers.unique("g"));
    config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, MAX_POLL_INTERVAL_MS);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    AtomicInteger revoked = new AtomicInteger();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              revoked.addAndGet(partitions.size());
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
          });
      proxy.inject(Fault.hang(Duration.ofSeconds(60)), "GET");
      List<String> got = new ArrayList<>();
      RecordDeserializationException failed = null;
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (failed == null && System.nanoTime() < end) {
        try {
          consumer.poll(Duration.ofMillis(200)).forEach(r -> got.add(r.key()));
        } catch (RecordDeserializationException e) {
          failed = e;
        }
      }
      // Only the inline record before the hung refs is delivered (once seen twice on a loaded
      // machine: Kafka's at-least-once redelivery, not a skipped or wrong record).
      assertThat(got).isNotEmpty().containsOnly("small");
      assertThat(failed).isNotNull();
      String member = consumer.groupMetadata().memberId();
      assertThat(member).isNotEmpty();
      TopicPartition tp = new TopicPartition(topic, 0);
      // Polls stuck on the hung store for longer than max.poll.interval.ms in all: each gives up
      // within its 3 s budget (sooner when it joins a store request that is timing out).
      long stuckSince = System.nanoTime();
      int polls = 0;
      while (System.nanoTime() - stuckSince
          < Duration.ofMillis(MAX_POLL_INTERVAL_MS + 1_000).toNanos()) {
        consumer.seek(tp, failed.offset());
        long start = System.nanoTime();
        try {
          consumer.poll(Duration.ofMillis(200));
          throw new AssertionError("a poll returned past a record that could not be read");
        } catch (RecordDeserializationException e) {
          failed = e;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took)
            .as("poll %d: %s", polls, failed.getCause())
            .isLessThan(Duration.ofMillis(MAX_POLL_INTERVAL_MS / 2 + 1_500)); // budget + slack
        assertThat(ClaimCheckDeserializationExceptionHandler.claimFailure(failed).reason())
            .isEqualTo(Reason.UNAVAILABLE);
        assertThat(failed.offset()).isEqualTo(1);
        polls++;
      }
      proxy.clear();
      // The hung requests die with their callers' deadlines; then the refs are read.
      List<ConsumerRecord<String, byte[]>> rest = new ArrayList<>();
      end = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      while (rest.size() < REFS && System.nanoTime() < end) {
        try {
          consumer.poll(Duration.ofMillis(200)).forEach(rest::add);
        } catch (RecordDeserializationException e) {
          assertThat(ClaimCheckDeserializationExceptionHandler.claimFailure(e).reason())
              .isEqualTo(Reason.UNAVAILABLE);
          consumer.seek(tp, e.offset());
        }
      }
      assertThat(rest).hasSize(REFS);
      for (int i = 0; i < REFS; i++) {
        assertThat(rest.get(i).key()).isEqualTo("ref" + i);
        assertThat(rest.get(i).value()).isEqualTo(Servers.payload(2000, 500 + i));
      }
      consumer.commitSync(); // fails with CommitFailedException had the group moved on
      assertThat(consumer.groupMetadata().memberId()).isEqualTo(member);
      assertThat(revoked).hasValue(0);
    }
  }
}
