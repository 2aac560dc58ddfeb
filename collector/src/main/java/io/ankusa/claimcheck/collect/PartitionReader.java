package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * One consumer reading its share of partitions from log start to their noted end offsets; used by
 * one thread.
 *
 * <p>A partition leaves {@code remaining} only when the consumer's position reached its end offset
 * (records past it are ignored, so the mark is exactly the snapshot); on a failure or a stall,
 * every partition still remaining is written to {@code incomplete} with the reason.
 */
final class PartitionReader implements Runnable {

  private static final Duration POLL = Duration.ofMillis(200);

  private final Supplier<Consumer<byte[], byte[]>> consumers;
  private final List<TopicPartition> share;
  private final Map<TopicPartition, Long> end;
  private final long stallNanos;
  private final Ticker ticker;
  private final RefVisitor visitor;
  private final LongAdder records;
  private final Map<TopicPartition, String> incomplete;

  PartitionReader(
      Supplier<Consumer<byte[], byte[]>> consumers,
      List<TopicPartition> share,
      Map<TopicPartition, Long> end,
      Duration stall,
      Ticker ticker,
      RefVisitor visitor,
      LongAdder records,
      Map<TopicPartition, String> incomplete) {
    this.consumers = consumers;
    this.share = share;
    this.end = end;
    this.stallNanos = stall.toNanos();
    this.ticker = ticker;
    this.visitor = visitor;
    this.records = records;
    this.incomplete = incomplete;
  }

  @Override
  public void run() {
    Map<TopicPartition, Long> remaining = new HashMap<>();
    share.forEach(tp -> remaining.put(tp, end.get(tp)));
    try (Consumer<byte[], byte[]> consumer = consumers.get()) {
      consumer.assign(share);
      consumer.seekToBeginning(share);
      long lastProgress = ticker.read();
      long lastSum = Long.MIN_VALUE;
      while (!remaining.isEmpty()) {
        if (Thread.currentThread().isInterrupted()) {
          fail(remaining, "interrupted");
          return;
        }
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(POLL);
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          Long stop = remaining.get(tp);
          if (stop != null && r.offset() < stop) {
            records.increment();
            RecordRefs.visit(r, visitor);
          }
        }
        long sum = 0;
        for (TopicPartition tp : List.copyOf(remaining.keySet())) {
          long position = consumer.position(tp);
          sum += position;
          if (position >= remaining.get(tp)) {
            remaining.remove(tp);
            consumer.pause(List.of(tp));
          }
        }
        long now = ticker.read();
        if (sum != lastSum || remaining.isEmpty()) {
          lastSum = sum;
          lastProgress = now;
        } else if (now - lastProgress > stallNanos) {
          fail(remaining, "no progress for " + Duration.ofNanos(stallNanos).toSeconds() + " s");
          return;
        }
      }
    } catch (InterruptException | WakeupException e) {
      Thread.currentThread().interrupt();
      fail(remaining, "interrupted");
    } catch (RuntimeException e) {
      fail(remaining, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private void fail(Map<TopicPartition, Long> remaining, String why) {
    remaining.forEach((tp, stop) -> incomplete.put(tp, "not read to offset " + stop + ": " + why));
  }
}
