package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchStats;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.ref.RefCodec;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The timed producer and consumer loops of {@link EndToEndHarness}; stateless, so thread-safe.
 * Client construction and offset lookup stay outside the clock; everything a record costs from
 * {@code send} to its last acknowledgement, or from the first poll to its value checked, is in.
 */
final class Passes {

  private static final Duration GIVE_UP = Duration.ofMinutes(10);

  private Passes() {}

  /** Called when a pass's clock starts and when it stops (before any client is closed). */
  interface Meter {
    void begin();

    void end();
  }

  /**
   * Sends {@code s.count()} records to partition 0 of {@code topic} with the producer {@code open}
   * builds from {@code config} (a {@code KafkaProducer}, or a {@code ClaimCheckProducer}) and
   * flushes; returns the send + flush nanoseconds.
   *
   * @throws IllegalStateException when any send failed, with the first failure
   */
  static long produce(
      Map<String, Object> config,
      Function<Map<String, Object>, Producer<byte[], byte[]>> open,
      String topic,
      EndToEndHarness.Size s,
      Values values,
      Meter meter) {
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<Exception> first = new AtomicReference<>();
    long took;
    try (Producer<byte[], byte[]> producer = open.apply(config)) {
      meter.begin();
      long start = System.nanoTime();
      for (int i = 0; i < s.count(); i++) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(topic, 0, Values.key(i), values.value(i, s.bytes()));
        producer.send(
            r,
            (md, e) -> {
              if (e != null) {
                failed.incrementAndGet();
                first.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
      took = System.nanoTime() - start;
      meter.end();
    }
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " sends to " + topic + " failed", first.get());
    }
    return took;
  }

  /**
   * Reads partition 0 of {@code topic} from the beginning until every record came, checking each
   * value; returns the nanoseconds from the first poll to the last value checked. With {@code
   * prefetch} (the claim-check keys) the consumer is a {@link PrefetchingConsumer} and a {@code
   * ClaimCheckDeserializer} runs after it: then every raw value must be a ref, and every one must
   * have been prefetched (none skipped, none failed).
   */
  static long consume(
      Map<String, Object> config,
      String topic,
      EndToEndHarness.Size s,
      Values values,
      Map<String, Object> prefetch,
      Meter meter) {
    TopicPartition tp = new TopicPartition(topic, 0);
    KafkaConsumer<byte[], byte[]> kafkaConsumer = new KafkaConsumer<>(config);
    PrefetchingConsumer prefetching =
        prefetch == null ? null : new PrefetchingConsumer(kafkaConsumer, prefetch);
    Consumer<byte[], byte[]> consumer = prefetching == null ? kafkaConsumer : prefetching;
    ClaimCheckDeserializer<byte[]> after = null;
    String who = prefetch == null ? topic : topic + " (prefetch)";
    try {
      if (prefetch != null) {
        after = new ClaimCheckDeserializer<>();
        after.configure(prefetch, false);
      }
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      consumer.position(tp);
      BitSet seen = new BitSet(s.count());
      int n = 0;
      meter.begin();
      long start = System.nanoTime();
      long until = start + GIVE_UP.toNanos();
      while (n < s.count()) {
        if (System.nanoTime() - until > 0) {
          throw new AssertionError(who + ": only " + n + " of " + s.count() + " in " + GIVE_UP);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          byte[] value = r.value();
          if (after != null) {
            if (value == null || !RefCodec.isRef(value)) {
              throw new AssertionError(who + ": record " + r.offset() + " carries no ref");
            }
            value = after.deserialize(topic, r.headers(), value);
          }
          values.check(who, r.key(), value, s.bytes(), seen);
          n++;
        }
      }
      long took = System.nanoTime() - start;
      meter.end();
      if (prefetching != null) {
        PrefetchStats st = prefetching.stats();
        if (st.started() != s.count() || st.skipped() != 0 || st.failed() != 0) {
          throw new AssertionError(who + ": prefetch " + st + " for " + s.count() + " refs");
        }
      }
      return took;
    } finally {
      if (after != null) {
        after.close();
      }
      consumer.close();
    }
  }
}
