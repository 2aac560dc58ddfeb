package io.ankusa.claimcheck.collect;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * What one {@link Collector#scan} read: the matched topics and partitions, the records read, and
 * the partitions not read to their noted end, with why; immutable.
 *
 * @param topics the topics whose whole name matched, sorted
 * @param partitions how many partitions they had when the end offsets were noted
 * @param records the records read
 * @param incomplete every partition not read to its noted end offset, with the reason
 */
public record LogScan(
    Set<String> topics, int partitions, long records, Map<TopicPartition, String> incomplete) {

  /** Copies the collections. */
  public LogScan {
    topics = Collections.unmodifiableSortedSet(new TreeSet<>(topics));
    incomplete = Map.copyOf(incomplete);
  }

  /** Whether every partition was read to its noted end offset (so no ref was missed). */
  public boolean complete() {
    return incomplete.isEmpty();
  }
}
