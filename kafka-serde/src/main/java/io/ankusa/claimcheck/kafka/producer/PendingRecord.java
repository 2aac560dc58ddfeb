package io.ankusa.claimcheck.kafka.producer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One record a {@link ClaimCheckProducer} accepted and has not yet handed to its inner producer (or
 * failed); its mutable fields are guarded by the {@link CheckInPipeline}'s lock, except {@code
 * settled}, which an uploader may read without it to skip a record nobody waits for.
 */
final class PendingRecord {

  final long seq;

  /**
   * The ordering domain (a partition, or a key under a custom partitioner); null: none. When it is
   * a partition, {@link #staged} names it: the partition is pinned at send.
   */
  final Object lane;

  /** The serialized record, value still inline (the bytes to check in, when {@link #checksIn}). */
  final ProducerRecord<byte[], byte[]> staged;

  final boolean checksIn;
  final long reserved;
  final long transaction;
  final Callback callback;
  final CompletableFuture<RecordMetadata> future = new CompletableFuture<>();

  /** Set by whoever completes the callback and future, which happens once whatever is thrown. */
  final AtomicBoolean completed = new AtomicBoolean();

  /** The record to hand to the inner producer once its value is final; null until then. */
  ProducerRecord<byte[], byte[]> ready;

  /** Why this record fails; null unless it does. */
  RuntimeException failure;

  /** True once handed off or failed: nothing more happens to it here. */
  volatile boolean settled;

  PendingRecord(
      long seq,
      Object lane,
      ProducerRecord<byte[], byte[]> staged,
      boolean checksIn,
      long reserved,
      long transaction,
      Callback callback) {
    this.seq = seq;
    this.lane = lane;
    this.staged = staged;
    this.checksIn = checksIn;
    this.reserved = reserved;
    this.transaction = transaction;
    this.callback = callback;
    if (!checksIn) {
      ready = staged;
    }
  }

  boolean decided() {
    return ready != null || failure != null;
  }

  /** The value's length (0 for a null value). */
  int valueBytes() {
    return staged.value() == null ? 0 : staged.value().length;
  }

  /** What Kafka passes a callback of a record that failed before it had an offset. */
  RecordMetadata failedMetadata() {
    int partition = staged.partition() == null ? -1 : staged.partition();
    return new RecordMetadata(new TopicPartition(staged.topic(), partition), -1, -1, -1, -1, -1);
  }
}
