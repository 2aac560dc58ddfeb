package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads topics from their log start to the end offsets noted in a {@link Snapshot}, partitions in
 * parallel, handing every ref to a {@link RefVisitor}; thread-safe (each call uses its own
 * consumers).
 *
 * <p>Records are read uncommitted, so records of open transactions count. A partition is read
 * completely only when its consumer's position reached the noted end offset; one that fails or
 * makes no progress for the stall timeout is reported incomplete with the reason, never silently
 * taken as read.
 */
final class LogScanner {

  /** The matched topics' partitions with their log-start and end offsets, noted at one time. */
  record Snapshot(Map<TopicPartition, Long> start, Map<TopicPartition, Long> end) {

    /** Copies the maps. */
    public Snapshot {
      start = Map.copyOf(start);
      end = Map.copyOf(end);
    }

    /** The matched topics, sorted. */
    public Set<String> topics() {
      Set<String> topics = new TreeSet<>();
      end.keySet().forEach(tp -> topics.add(tp.topic()));
      return topics;
    }

    /**
     * How many records lie between log start and end, summed (an upper bound on compacted logs).
     */
    public long records() {
      long n = 0;
      for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
        n += Math.max(0, e.getValue() - start.getOrDefault(e.getKey(), 0L));
      }
      return n;
    }
  }

  /** What one read did: records read, and the partitions not read to their end, with why. */
  record ScanResult(long records, Map<TopicPartition, String> incomplete) {

    /** Copies the map. */
    public ScanResult {
      incomplete = Map.copyOf(incomplete);
    }

    /** Whether every partition was read to its noted end offset. */
    public boolean complete() {
      return incomplete.isEmpty();
    }
  }

  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(60);

  private static final java.util.concurrent.atomic.AtomicLong SEQUENCE =
      new java.util.concurrent.atomic.AtomicLong();

  private final Map<String, Object> clientConfig;
  private final Ticker ticker;

  /**
   * Uses Kafka client settings {@code config} ({@code bootstrap.servers}, security; {@code
   * claimcheck.*} keys are ignored) and {@code ticker} for the stall timeout.
   */
  public LogScanner(Map<String, ?> config, Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    Map<String, Object> c = new HashMap<>();
    config.forEach(
        (k, v) -> {
          if (!io.ankusa.claimcheck.config.ClaimCheckConfig.isClaimCheckKey(k)) {
            c.put(k, v);
          }
        });
    c.remove(ConsumerConfig.GROUP_ID_CONFIG); // partitions are assigned, never committed
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"); // log start moved: those are gone
    c.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    this.clientConfig = Map.copyOf(c);
  }

  /** See {@link io.ankusa.claimcheck.collect.Collector#scan}. */
  public static LogScan scan(
      Map<String, ?> config,
      Pattern topics,
      int readers,
      Duration stall,
      Ticker ticker,
      RefVisitor visitor) {
    LogScanner scanner = new LogScanner(config, ticker);
    Snapshot snapshot = scanner.snapshot(topics, METADATA_TIMEOUT);
    ScanResult read = scanner.read(snapshot, readers, stall, visitor);
    return new LogScan(snapshot.topics(), snapshot.end().size(), read.records(), read.incomplete());
  }

  /** Notes the partitions of every topic whose whole name matches {@code topics}, with offsets. */
  public Snapshot snapshot(Pattern topics, Duration timeout) {
    try (Consumer<byte[], byte[]> consumer = consumer("snapshot")) {
      List<TopicPartition> parts = partitions(consumer, topics, timeout);
      return new Snapshot(
          consumer.beginningOffsets(parts, timeout), consumer.endOffsets(parts, timeout));
    }
  }

  /** The partitions of every topic whose whole name matches {@code topics}, now. */
  public Set<TopicPartition> partitions(Pattern topics, Duration timeout) {
    try (Consumer<byte[], byte[]> consumer = consumer("topics")) {
      return Set.copyOf(partitions(consumer, topics, timeout));
    }
  }

  /**
   * Reads every partition of {@code snapshot} from its log start to its noted end with up to {@code
   * readers} consumers at once; a partition without progress for {@code stall} is given up. Blocks
   * until done; an interrupt stops the read (the flag is restored) and reports every unfinished
   * partition incomplete.
   */
  public ScanResult read(Snapshot snapshot, int readers, Duration stall, RefVisitor visitor) {
    List<TopicPartition> todo = new ArrayList<>();
    snapshot
        .end()
        .forEach(
            (tp, end) -> {
              if (end > snapshot.start().getOrDefault(tp, 0L)) {
                todo.add(tp);
              }
            });
    todo.sort((a, b) -> a.toString().compareTo(b.toString()));
    int n = Math.max(1, Math.min(readers, todo.size()));
    List<List<TopicPartition>> shares = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      shares.add(new ArrayList<>());
    }
    for (int i = 0; i < todo.size(); i++) {
      shares.get(i % n).add(todo.get(i));
    }
    LongAdder records = new LongAdder();
    Map<TopicPartition, String> incomplete = new ConcurrentHashMap<>();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            n,
            r -> {
              Thread t = new Thread(r, "claimcheck-log-scanner");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        List<TopicPartition> share = shares.get(i);
        if (share.isEmpty()) {
          continue;
        }
        PartitionReader reader =
            new PartitionReader(
                () -> consumer("reader"),
                share,
                snapshot.end(),
                stall,
                ticker,
                visitor,
                records,
                incomplete);
        running.add(pool.submit(reader));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pool.shutdownNow();
      todo.forEach(tp -> incomplete.putIfAbsent(tp, "interrupted"));
    } catch (ExecutionException e) {
      todo.forEach(tp -> incomplete.putIfAbsent(tp, "reader failed: " + e.getCause()));
    } finally {
      pool.shutdownNow();
    }
    return new ScanResult(records.sum(), incomplete);
  }

  /**
   * The id of each of {@code topics} now (a topic deleted and re-created under its name gets a new
   * id); a topic that does not exist is absent. Throws {@link
   * org.apache.kafka.common.KafkaException} when the cluster could not answer within {@code
   * timeout}; an interrupt restores the flag and throws too.
   */
  public Map<String, Uuid> topicIds(Set<String> topics, Duration timeout) {
    return TopicIds.describe(
        clientConfig, "claimcheck-topics-" + SEQUENCE.incrementAndGet(), topics, timeout);
  }

  private Consumer<byte[], byte[]> consumer(String role) {
    Map<String, Object> c = new HashMap<>(clientConfig);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "claimcheck-" + role + "-" + SEQUENCE.incrementAndGet());
    return new KafkaConsumer<>(c);
  }

  private static List<TopicPartition> partitions(
      Consumer<byte[], byte[]> consumer, Pattern topics, Duration timeout) {
    List<TopicPartition> parts = new ArrayList<>();
    for (Map.Entry<String, List<PartitionInfo>> e : consumer.listTopics(timeout).entrySet()) {
      if (topics.matcher(e.getKey()).matches()) {
        for (PartitionInfo p : e.getValue()) {
          parts.add(new TopicPartition(p.topic(), p.partition()));
        }
      }
    }
    return parts;
  }
}
