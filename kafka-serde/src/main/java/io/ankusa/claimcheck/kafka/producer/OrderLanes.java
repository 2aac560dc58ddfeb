package io.ankusa.claimcheck.kafka.producer;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

/**
 * Names the ordering domain ("lane") of a record: records of one lane reach the inner producer in
 * send order; stateless apart from the inner producer's metadata, thread-safe.
 *
 * <ul>
 *   <li>an explicit partition: that {@link TopicPartition};
 *   <li>a key under the default partitioner: the partition Kafka's built-in partitioner picks,
 *       {@code toPositive(murmur2(key)) % partitions} over the inner producer's {@code
 *       partitionsFor(topic)} (which waits for metadata as {@code send} does);
 *   <li>a key under a custom {@code partitioner.class} or {@code partitioner.ignore.keys=true}: the
 *       topic and key bytes, so records of one key keep their order (the partition is not known
 *       before the inner producer picks it);
 *   <li>no key and no partition: no lane — the sticky partitioner spreads such records with no
 *       order between them, and so do we.
 * </ul>
 *
 * <p>A lane that is a partition is also where the record goes: the producer pins it in the record
 * at send, so partitions added before the record is handed on (the inner producer would pick {@code
 * murmur2 % }the new count) cannot put it behind later records of its key, as Kafka's own producer,
 * which picks the partition in {@code send}, never does. The other lanes are not pinned: the inner
 * producer's partitioner picks at hand-off, and one lane still keeps one key's order.
 */
final class OrderLanes {

  /** The lane of keyed records whose partition we cannot compute. */
  record KeyLane(String topic, ByteBuffer key) {}

  private final Producer<byte[], byte[]> inner;
  private final boolean keyedPartitioning;

  OrderLanes(Producer<byte[], byte[]> inner, boolean keyedPartitioning) {
    this.inner = inner;
    this.keyedPartitioning = keyedPartitioning;
  }

  /** The lane of a record to {@code topic}; null when it has none. */
  Object of(String topic, Integer partition, byte[] key) {
    if (partition != null) {
      return new TopicPartition(topic, partition);
    }
    if (key == null) {
      return null;
    }
    if (keyedPartitioning) {
      List<PartitionInfo> partitions = inner.partitionsFor(topic);
      if (partitions != null && !partitions.isEmpty()) {
        return new TopicPartition(topic, Utils.toPositive(Utils.murmur2(key)) % partitions.size());
      }
    }
    return new KeyLane(topic, ByteBuffer.wrap(key));
  }
}
