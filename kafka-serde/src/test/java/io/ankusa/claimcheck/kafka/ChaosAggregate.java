package io.ankusa.claimcheck.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The chaos run's repartitioning aggregation (issue 15), built twice in the one exactly-once app:
 * once over the claim-check serde (the default serdes: repartition topics, stores, changelogs and
 * output), once over plain bytes as the reference. Each record goes to one of {@link #SLOTS} slots
 * (a {@code KTable}: a slot's value is replaced), the slots are grouped by {@code slot % GROUPS}
 * and {@code aggregate(adder, subtractor)} keeps per group the count, the id sum and the CRC sum of
 * the slots' values — so each repartition record is a {@code Change} of two chaos values, one
 * either side of the threshold as often as not, and the aggregates cross it too (an odd count is
 * padded past it). Both branches see the same records in the same order, so their final aggregates
 * must be byte-identical; stateless, the topology it builds is confined to its app.
 */
final class ChaosAggregate {

  static final String OUT = "chaos-agg-out";
  static final String REFERENCE = "chaos-agg-ref";
  static final String KIND = "streams-agg";
  static final int SLOTS = 24;
  static final int GROUPS = 4;
  private static final int PADDED = 1_500;

  private ChaosAggregate() {}

  /** Adds both branches under {@code in}; the claim-checked one reports into {@code ledger}. */
  static void build(KStream<String, byte[]> in, ChaosLedger ledger) {
    branch(in, "agg", null, ledger).to(OUT);
    Serde<byte[]> raw = Serdes.ByteArray();
    branch(in, "agg-ref", raw, null).to(REFERENCE, Produced.with(Serdes.String(), raw));
  }

  /** One branch: {@code values} null for the default (claim-check) serde. */
  private static KStream<String, byte[]> branch(
      KStream<String, byte[]> in, String name, Serde<byte[]> values, ChaosLedger ledger) {
    Materialized<String, byte[], KeyValueStore<Bytes, byte[]>> slotStore =
        Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as(name + "-slots")
            .withCachingDisabled();
    Materialized<String, byte[], KeyValueStore<Bytes, byte[]>> sumStore =
        Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as(name + "-sums")
            .withCachingDisabled();
    Grouped<String, byte[]> grouped = Grouped.as(name + "-groups");
    if (values != null) {
      slotStore = slotStore.withKeySerde(Serdes.String()).withValueSerde(values);
      sumStore = sumStore.withKeySerde(Serdes.String()).withValueSerde(values);
      grouped = Grouped.with(name + "-groups", Serdes.String(), values);
    }
    KTable<String, byte[]> slots =
        in.selectKey((k, v) -> "s" + Math.floorMod(Long.parseLong(k), SLOTS)).toTable(slotStore);
    return slots
        .groupBy(
            (slot, v) -> KeyValue.pair("g" + Integer.parseInt(slot.substring(1)) % GROUPS, v),
            grouped)
        .aggregate(
            () -> sum(0, 0, 0),
            (group, v, agg) -> plus(agg, v, 1, ledger),
            (group, v, agg) -> plus(agg, v, -1, ledger),
            sumStore)
        .toStream();
  }

  private static byte[] plus(byte[] agg, byte[] value, int sign, ChaosLedger ledger) {
    long id = ByteBuffer.wrap(value).getLong(4);
    if (ledger != null) {
      ledger.consumed(KIND, id, value); // verified byte for byte after its claim round trips
    }
    CRC32 crc = new CRC32();
    crc.update(value);
    ByteBuffer a = ByteBuffer.wrap(agg, 1, 24);
    return sum(a.getLong() + sign, a.getLong() + sign * id, a.getLong() + sign * crc.getValue());
  }

  /** An aggregate: never starts with the ref magic; past the threshold when the count is odd. */
  private static byte[] sum(long count, long ids, long crcs) {
    byte[] out = new byte[count % 2 != 0 ? PADDED : 25];
    ByteBuffer.wrap(out).put((byte) 1).putLong(count).putLong(ids).putLong(crcs);
    return out;
  }

  static long count(byte[] agg) {
    return ByteBuffer.wrap(agg, 1, 8).getLong();
  }

  /**
   * Reads both output topics (committed records only) until their latest aggregates agree and have
   * not changed for {@code quiet}, or {@code timeout} passed; returns {claim-checked, reference},
   * each group → aggregate.
   */
  static List<Map<String, byte[]>> settle(
      Map<String, Object> claimedConfig, String bootstrap, Duration quiet, Duration timeout) {
    Map<String, Object> plain = new HashMap<>();
    plain.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    plain.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, Object> claimed = new HashMap<>(claimedConfig);
    claimed.remove(ConsumerConfig.GROUP_ID_CONFIG);
    claimed.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, byte[]> got = new TreeMap<>();
    Map<String, byte[]> ref = new TreeMap<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(claimed);
        KafkaConsumer<String, byte[]> r =
            new KafkaConsumer<>(plain, new StringDeserializer(), new ByteArrayDeserializer())) {
      assign(c, OUT);
      assign(r, REFERENCE);
      long end = System.nanoTime() + timeout.toNanos();
      long quietSince = System.nanoTime();
      while (System.nanoTime() < end) {
        boolean changed = read(c, got) | read(r, ref);
        if (changed || !same(got, ref)) {
          quietSince = System.nanoTime();
        } else if (System.nanoTime() - quietSince >= quiet.toNanos()) {
          break;
        }
      }
    }
    return List.of(got, ref);
  }

  private static void assign(KafkaConsumer<String, byte[]> c, String topic) {
    List<TopicPartition> parts =
        c.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    c.assign(parts);
    c.seekToBeginning(parts);
  }

  private static boolean read(KafkaConsumer<String, byte[]> c, Map<String, byte[]> into) {
    boolean changed = false;
    for (ConsumerRecord<String, byte[]> rec : c.poll(Duration.ofMillis(200))) {
      changed |= !Arrays.equals(into.put(rec.key(), rec.value()), rec.value());
    }
    return changed;
  }

  static boolean same(Map<String, byte[]> a, Map<String, byte[]> b) {
    return a.keySet().equals(b.keySet())
        && a.entrySet().stream().allMatch(e -> Arrays.equals(e.getValue(), b.get(e.getKey())));
  }
}
