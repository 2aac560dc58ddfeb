package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.kafka.internal.PollBoundaries;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Tells the claim-check deserializers of a consumer where each poll ends, so the poll budget's
 * windows are exact; thread-safe (stateless; it signals the calling thread).
 *
 * <p>Add it with {@code
 * interceptor.classes=io.ankusa.claimcheck.kafka.ClaimCheckConsumerInterceptor} (in Kafka Streams:
 * {@code main.consumer.interceptor.classes}). It passes every record through.
 *
 * <p><b>Trade-off.</b> Without it, a deserializer infers a poll's end from a pause of more than
 * {@link PollBudget#IDLE_GAP_NANOS} (50 ms) between two redeems: a consumer deserializes a poll's
 * records back to back, so this is right for a plain consumer, costs nothing and needs no config.
 * But it is a guess: a GC pause inside one poll splits it in two windows (more than the budget in
 * total), and in Kafka Streams, which deserializes each record as it processes it, processing
 * slower than 50 ms a record gives each record its own window. With the interceptor, a window is
 * exactly one poll: from the end of one {@code poll} to the end of the next, whatever the pauses,
 * which is what {@code max.poll.interval.ms} measures. It relies on the consumer calling {@code
 * onConsume} on the thread that deserialized the records, which every Kafka consumer and Streams
 * thread does.
 */
public class ClaimCheckConsumerInterceptor<K, V> implements ConsumerInterceptor<K, V> {

  @Override
  public ConsumerRecords<K, V> onConsume(ConsumerRecords<K, V> records) {
    PollBoundaries.signal();
    return records;
  }

  @Override
  public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

  @Override
  public void configure(Map<String, ?> configs) {}

  @Override
  public void close() {}
}
