package io.ankusa.claimcheck.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;

/**
 * The producer and consumer loops of a chaos run, each on its own thread; each loop is confined to
 * its thread and reports into the shared, thread-safe {@link ChaosLedger}.
 */
final class ChaosClients {

  private ChaosClients() {}

  /**
   * Sends record ids taken from {@code next} (until it answers a negative id), each as soon as its
   * pacing time ({@code dueNanos}) has come; retries a failed send until it succeeds — a send that
   * failed UNAVAILABLE during an outage of every store is no loss when the app retries it — and
   * counts every retry by reason.
   */
  static void produce(
      Map<String, Object> config,
      String topic,
      ChaosLedger ledger,
      AtomicLong next,
      long count,
      LongUnaryOperator dueNanos,
      AtomicBoolean stop) {
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config)) {
      for (long id = next.getAndIncrement();
          id < count && !stop.get();
          id = next.getAndIncrement()) {
        long wait = dueNanos.applyAsLong(id) - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        byte[] value = ChaosValue.of(ledger.seed, id);
        for (int attempt = 0; !stop.get(); attempt++) {
          try {
            producer.send(new ProducerRecord<>(topic, Long.toString(id), value)).get();
            ledger.produced.add(id);
            break;
          } catch (java.util.concurrent.ExecutionException | KafkaException e) {
            Throwable cause = e instanceof KafkaException ? e : e.getCause();
            ClaimCheckException claim =
                ClaimCheckDeserializationExceptionHandler.claimFailure(cause);
            ChaosLedger.count(
                ledger.sendRetries,
                claim != null
                    ? "claim " + claim.reason() + ChaosRecorders.kmsTag(claim)
                    : cause.getClass().getSimpleName());
            Thread.sleep(Math.min(1000, 100L << Math.min(attempt, 4)));
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * One member of a consumer group that never skips: on a deserialization failure it seeks back to
   * the failed record and polls again. Verifies every value byte for byte, commits after each
   * batch, and records what would drop it from its group: a gap between polls past {@code
   * max.poll.interval.ms}, a failed commit, lost partitions.
   */
  static void consume(
      Map<String, Object> config,
      String topic,
      String kind,
      ChaosLedger ledger,
      long maxPollIntervalMs,
      AtomicBoolean stop) {
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              ChaosLedger.count(ledger.membership, kind + " revoked");
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              ChaosLedger.count(ledger.membership, kind + " assigned");
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
              ChaosLedger.count(ledger.membership, kind + " lost");
              ledger.dropped.add(
                  String.format(
                      "%.1fs %s lost %s", ledger.seconds(System.nanoTime()), kind, partitions));
            }
          });
      long lastPoll = 0;
      while (!stop.get()) {
        long now = System.nanoTime();
        if (lastPoll != 0) {
          ledger.pollGap(now - lastPoll);
          if (now - lastPoll > maxPollIntervalMs * 1_000_000L) {
            ledger.dropped.add(
                String.format(
                    "%.1fs %s: %d ms between polls",
                    ledger.seconds(now), kind, (now - lastPoll) / 1_000_000));
          }
        }
        lastPoll = now;
        boolean any = false;
        try {
          for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            ledger.consumed(kind, Long.parseLong(r.key()), r.value());
            if ("plain".equals(kind))
              ledger.positions.putIfAbsent(
                  Long.parseLong(r.key()), new long[] {r.partition(), r.offset()});
            any = true;
          }
        } catch (RecordDeserializationException e) {
          ChaosLedger.count(ledger.membership, kind + " seek back after a failed redeem");
          consumer.seek(e.topicPartition(), e.offset());
          // Never skip, but do not spin on a record that keeps failing.
          java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
          continue;
        } catch (KafkaException e) {
          ChaosLedger.count(ledger.membership, kind + " poll " + e.getClass().getSimpleName());
          continue;
        }
        if (!any) {
          continue;
        }
        try {
          consumer.commitSync(Duration.ofSeconds(2));
        } catch (CommitFailedException e) {
          ledger.dropped.add(
              String.format(
                  "%.1fs %s: commit failed: %s",
                  ledger.seconds(System.nanoTime()), kind, e.getMessage()));
        } catch (KafkaException e) {
          ChaosLedger.count(ledger.membership, kind + " commit " + e.getClass().getSimpleName());
        }
      }
    }
  }
}
