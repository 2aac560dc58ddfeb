package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The servers and the two libraries' clients of {@link PeerHarness}: sends values with either
 * serializer and reads them back with either deserializer, checking every byte; not thread-safe
 * (one harness thread).
 *
 * <p>Both libraries go through the same {@link ClientDriver} loops: ours on this JVM's Kafka
 * clients, the peer's on the Kafka clients in {@code peerRuntime} (see {@link PeerDriver}). Configs
 * name classes, which each driver resolves in its own loader. Record {@code i} carries key {@code
 * i} (4 bytes) and value {@code values[i]}, so a reader checks each value against the key it came
 * with, whatever was refused before it.
 */
final class PeerRig implements AutoCloseable {

  /** The two libraries, as a producer sees them. */
  enum Lib {
    PEER,
    OURS
  }

  /** The three ways to consume: peer deserializer, ours, ours behind a prefetching consumer. */
  enum Reader {
    PEER,
    OURS,
    OURS_PREFETCH
  }

  /**
   * One batch sent: send + flush nanoseconds, how many the broker acknowledged, and the first
   * failure (empty when none).
   */
  record Sent(long nanos, int ok, int failed, String firstError) {
    Sent requireAll() {
      if (failed > 0) {
        throw new IllegalStateException(failed + " sends failed" + firstError);
      }
      return this;
    }
  }

  static final String PEER_SERIALIZER = "com.bakdata.kafka.LargeMessageSerializer";
  static final String PEER_DESERIALIZER = "com.bakdata.kafka.LargeMessageDeserializer";
  private static final String BYTES_SERIALIZER =
      "org.apache.kafka.common.serialization.ByteArraySerializer";
  private static final String BYTES_DESERIALIZER =
      "org.apache.kafka.common.serialization.ByteArrayDeserializer";
  private static final Duration GIVE_UP = Duration.ofMinutes(5);

  private final byte[][] keys;
  private final byte[][] values;
  private final PeerDriver peerDriver;
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final FaultProxy storeA;
  private final FaultProxy storeB;
  private final Map<String, Object> peer = new HashMap<>();
  private final Map<String, Object> ours = new HashMap<>();
  private int clients;

  PeerRig(byte[][] values, int threshold, Path peerRuntime) {
    this.values = values;
    this.keys = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      keys[i] = ByteBuffer.allocate(4).putInt(i).array();
    }
    this.peerDriver = new PeerDriver(peerRuntime);
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String bucketA = s3.createBucket("peer-a-" + suffix);
    String bucketB = s3.createBucket("peer-b-" + suffix);
    this.storeA = FaultProxy.inFrontOf(s3);
    this.storeB = FaultProxy.inFrontOf(s3);

    // The peer: one base path, on store A. Its keys are AbstractLargeMessageConfig's.
    peer.put("large.message.base.path", "s3://" + bucketA + "/peer/");
    peer.put("large.message.max.byte.size", threshold);
    peer.put("large.message.s3.endpoint", storeA.endpoint().toString());
    peer.put("large.message.s3.region", s3.region());
    peer.put("large.message.s3.access.key", s3.accessKey());
    peer.put("large.message.s3.secret.key", s3.secretKey());
    peer.put("large.message.s3.path.style.access", "true");
    peer.put(
        "large.message.value.serde", "org.apache.kafka.common.serialization.Serdes$ByteArraySerde");

    // Ours: store A, then store B (its own endpoint), ordered placement.
    ours.putAll(
        s3.claimCheckConfig(
            "s3://" + bucketA + "/ours,s3://" + bucketB + "/ours", storeA.endpoint()));
    ours.put("claimcheck.store.1.s3.endpoint", storeB.endpoint().toString());
    ours.put("claimcheck.threshold.bytes", threshold);
    // A batch's claims must fit the cache to be prefetched (max.poll.records defaults to 500).
    long batch = 500L * values[0].length;
    ours.put("claimcheck.cache.max.bytes", Math.max(64L << 20, batch + batch / 4));
  }

  FaultProxy storeA() {
    return storeA;
  }

  FaultProxy storeB() {
    return storeB;
  }

  /** Holds every GET (and PUT) to store A this long; 0 leaves the method alone. */
  void latency(int getMs, int putMs) {
    if (getMs > 0) {
      storeA.inject(Fault.hang(Duration.ofMillis(getMs)), "GET");
    }
    if (putMs > 0) {
      storeA.inject(Fault.hang(Duration.ofMillis(putMs)), "PUT");
    }
  }

  /** Creates a fresh single-partition topic named after {@code what}. */
  String topic(String what) {
    String name = what + "-" + UUID.randomUUID().toString().substring(0, 8);
    kafka.createTopic(name, 1);
    return name;
  }

  /**
   * Sends records {@code 0..n-1} to {@code topic} with {@code lib}'s serializer and flushes; a send
   * the serializer refuses is counted, not retried. While store A is up, checks that it took one
   * PUT per acknowledged record (every value stored, none inline).
   */
  Sent send(Lib lib, String topic, int n) {
    Map<String, Object> p = new HashMap<>(lib == Lib.PEER ? peer : ours);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.CLIENT_ID_CONFIG, lib + "-producer-" + (++clients));
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, BYTES_SERIALIZER);
    p.put(
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        lib == Lib.PEER ? PEER_SERIALIZER : ClaimCheckSerializer.class.getName());
    boolean aUp = storeA.isUp();
    storeA.resetCounts();
    List<String> errors = new ArrayList<>();
    long[] r =
        lib == Lib.PEER
            ? peerDriver.send(p, topic, keys, values, n, errors)
            : ClientDriver.send(p, topic, keys, values, n, errors);
    int ok = (int) r[1];
    long puts = storeA.requestCount("PUT");
    if (aUp && puts != ok) {
      throw new AssertionError(
          String.format(
              "%s: %d PUTs to store A for %d records (one each expected)", lib, puts, ok));
    }
    return new Sent(r[0], ok, n - ok, errors.isEmpty() ? "" : "; first error: " + errors.get(0));
  }

  /**
   * Reads {@code topic} from the beginning with {@code reader} until {@code n} records came, checks
   * each value byte for byte and each key once, and returns the nanoseconds from the first poll to
   * the last check. With {@code countGets}, also checks that store A saw exactly one GET per record
   * and store B none (an empty cache, no retries, no extra requests).
   */
  long consume(Reader reader, String topic, int n, boolean countGets) {
    Map<String, Object> c = new HashMap<>(reader == Reader.PEER ? peer : ours);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, reader + "-consumer-" + (++clients));
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, BYTES_DESERIALIZER);
    c.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        reader == Reader.PEER
            ? PEER_DESERIALIZER
            : reader == Reader.OURS ? ClaimCheckDeserializer.class.getName() : BYTES_DESERIALIZER);
    BitSet seen = new BitSet();
    BiConsumer<byte[], byte[]> check = (key, value) -> check(reader, key, value, seen);
    storeA.resetCounts();
    storeB.resetCounts();
    long took;
    if (reader == Reader.PEER) {
      took = peerDriver.consume(c, topic, n, GIVE_UP, check);
    } else if (reader == Reader.OURS) {
      took = ClientDriver.consume(c, topic, n, GIVE_UP, null, null, check);
    } else {
      try (ClaimCheckDeserializer<byte[]> after = new ClaimCheckDeserializer<>()) {
        after.configure(c, false);
        took =
            ClientDriver.consume(
                c,
                topic,
                n,
                GIVE_UP,
                kafkaConsumer -> new PrefetchingConsumer(kafkaConsumer, c),
                after,
                check);
      }
    }
    if (seen.cardinality() != n) {
      throw new AssertionError(reader + ": " + seen.cardinality() + " distinct records of " + n);
    }
    long gets = storeA.requestCount("GET");
    long elsewhere = storeB.requestCount("GET");
    if (countGets && (gets != n || elsewhere != 0)) {
      throw new AssertionError(
          String.format(
              "%s: %d GETs to store A and %d to B for %d records (%d and 0 expected)",
              reader, gets, elsewhere, n, n));
    }
    return took;
  }

  /**
   * Joins group {@code group} on {@code topic} with {@code reader}'s deserializer (PEER or OURS)
   * and {@code max.poll.interval.ms}; see {@link ClientDriver#pollInGroup}.
   */
  String[] pollInGroup(Reader reader, String topic, String group, int maxPollIntervalMs) {
    Map<String, Object> c = new HashMap<>(reader == Reader.PEER ? peer : ours);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, reader + "-member-" + (++clients));
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, Integer.toString(maxPollIntervalMs));
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, BYTES_DESERIALIZER);
    c.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        reader == Reader.PEER ? PEER_DESERIALIZER : ClaimCheckDeserializer.class.getName());
    return reader == Reader.PEER
        ? peerDriver.pollInGroup(c, topic)
        : ClientDriver.pollInGroup(c, topic);
  }

  /** The version of the Kafka clients the peer runs on, as they report it. */
  String peerKafkaVersion() {
    return peerDriver.kafkaVersion();
  }

  /** The version of this JVM's Kafka clients (ours). */
  String ourKafkaVersion() {
    return PeerDriver.kafkaVersion(PeerRig.class.getClassLoader());
  }

  String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  private void check(Reader reader, byte[] key, byte[] value, BitSet seen) {
    int i = ByteBuffer.wrap(key).getInt();
    if (i < 0 || i >= values.length || seen.get(i)) {
      throw new AssertionError(reader + ": unexpected or repeated key " + i);
    }
    if (!Arrays.equals(value, values[i])) {
      String got = value == null ? "null" : value.length + " B";
      throw new AssertionError(reader + ": WRONG BYTES for record " + i + " (" + got + ")");
    }
    seen.set(i);
  }

  @Override
  public void close() {
    storeA.close();
    storeB.close();
    peerDriver.close();
  }
}
