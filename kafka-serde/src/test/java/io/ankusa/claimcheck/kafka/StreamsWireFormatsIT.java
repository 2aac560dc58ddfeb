package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams' own record formats over claim-checked values and keys (issue 15): a {@code
 * KTable#groupBy} repartition record ({@code Change}: new and old value, one {@code Headers}), the
 * foreign-key join's wrappers, and a record's headers forwarded to a topic written with another
 * serde. Nothing may be dead-lettered or altered while every claim is readable.
 */
class StreamsWireFormatsIT {

  private static final int THRESHOLD = 1024;
  private static final int SMALL = 40;
  private static final int LARGE = 5_000;
  private static final HexFormat HEX = HexFormat.of();
  private static FaultProxy proxy;
  private static String bucket;

  @TempDir Path stateDir;
  private KafkaStreams streams;
  private String dlq;

  /** Every record the Streams handler was handed, by reason (the product's handler decides). */
  static final List<String> FAILURES = new CopyOnWriteArrayList<>();

  /** The product's handler, recording what it is handed. */
  public static class RecordingHandler extends ClaimCheckDeserializationExceptionHandler {
    @Override
    public Response handleError(
        ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
      ClaimCheckException claim = claimFailure(exception);
      FAILURES.add(record.topic() + ": " + (claim != null ? claim.getMessage() : exception));
      return super.handleError(context, record, exception);
    }
  }

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("wire"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @BeforeEach
  void deadLetterTopic() {
    FAILURES.clear();
    dlq = Servers.unique("dlq");
    Servers.kafka().createTopic(dlq, 1);
  }

  @AfterEach
  void stopStreams() {
    if (streams != null) {
      streams.close(Duration.ofSeconds(10));
    }
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private Map<String, Object> claimCheck() {
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    cc.put("claimcheck.threshold.bytes", THRESHOLD);
    cc.put("claimcheck.store.op.deadline.ms", "30000"); // a loaded build machine: no write fails
    return cc;
  }

  private Properties streamsConfig(Map<String, Object> cc) {
    Properties p = new Properties();
    p.putAll(cc);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, Servers.unique("wire-app"));
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        RecordingHandler.class.getName());
    p.put(ClaimCheckDeserializationExceptionHandler.DLQ_TOPIC, dlq);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
    return p;
  }

  private void start(StreamsBuilder builder, Properties config) {
    streams = new KafkaStreams(builder.build(config), config);
    streams.setUncaughtExceptionHandler(e -> StreamThreadExceptionResponse.REPLACE_THREAD);
    streams.start();
  }

  /** An amount {@code n} as a value of {@code size} bytes: never starts with the ref magic. */
  static byte[] amount(long n, int size) {
    byte[] pad = new byte[Math.max(0, size - 9)];
    new Random(n).nextBytes(pad);
    return ByteBuffer.allocate(9 + pad.length).put((byte) 1).putLong(n).put(pad).array();
  }

  static long amountOf(byte[] value) {
    return ByteBuffer.wrap(value, 1, 8).getLong();
  }

  /** An aggregate's size follows its sum, so the aggregates cross the threshold too. */
  static byte[] sum(long n) {
    return amount(n, Math.floorMod(n, 2) == 0 ? SMALL : LARGE);
  }

  @Test
  void aGroupByReduceWhoseValuesCrossTheThresholdBothWaysIsExactAndDeadLettersNothing() {
    String in = Servers.unique("amounts");
    String out = Servers.unique("sums");
    Servers.kafka().createTopic(in, 2);
    Servers.kafka().createTopic(out, 1);
    Map<String, Object> cc = claimCheck();
    StreamsBuilder builder = new StreamsBuilder();
    KTable<String, byte[]> amounts = builder.table(in);
    amounts
        .groupBy((k, v) -> KeyValue.pair("g" + Math.floorMod(amountOf(v), 3), v))
        .reduce(
            (agg, v) -> sum(amountOf(agg) + amountOf(v)),
            (agg, v) -> sum(amountOf(agg) - amountOf(v)),
            Materialized.as("sums"))
        .toStream()
        .to(out);
    start(builder, streamsConfig(cc));

    // Each key's value alternates small / large, so each update's Change has one value inline and
    // the other a ref, in both orders; amounts move keys between groups too.
    Random random = new Random(15);
    Map<String, Long> latest = new HashMap<>();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      for (int round = 0; round < 6; round++) {
        for (int k = 0; k < 12; k++) {
          long n = random.nextInt(1 << 30);
          int size = (round + k) % 2 == 0 ? SMALL : LARGE;
          producer.send(new ProducerRecord<>(in, "k" + k, amount(n, size)));
          latest.put("k" + k, n);
        }
        producer.flush();
      }
    }
    Map<String, Long> expected = new HashMap<>(Map.of("g0", 0L, "g1", 0L, "g2", 0L));
    latest.values().forEach(n -> expected.merge("g" + Math.floorMod(n, 3), n, Long::sum));

    Map<String, byte[]> got =
        readUntil(
            out,
            cc,
            Servers.consumer(cc, Servers.unique("g")),
            m ->
                expected.entrySet().stream()
                    .allMatch(
                        e ->
                            Arrays.equals(m.get(e.getKey()), sum(e.getValue()))
                                || (e.getValue() == 0 && !m.containsKey(e.getKey()))));
    for (Map.Entry<String, Long> e : expected.entrySet()) {
      if (got.containsKey(e.getKey()) || e.getValue() != 0) {
        assertThat(got.get(e.getKey()))
            .as("aggregate of %s", e.getKey())
            .isEqualTo(sum(e.getValue()));
      }
    }
    assertNothingDeadLettered(cc);
  }

  @Test
  void aForeignKeyJoinOverClaimCheckedKeysAndValuesIsExactAndDeadLettersNothing() {
    String orders = Servers.unique("orders");
    String customers = Servers.unique("customers");
    String out = Servers.unique("joined");
    Servers.kafka().createTopic(orders, 2);
    Servers.kafka().createTopic(customers, 2);
    Servers.kafka().createTopic(out, 1);
    Map<String, Object> cc = claimCheck();
    cc.put("claimcheck.keys.enabled", "true");
    Properties config = streamsConfig(cc);
    config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    StreamsBuilder builder = new StreamsBuilder();
    KTable<byte[], byte[]> orderTable = builder.table(orders);
    KTable<byte[], byte[]> customerTable = builder.table(customers);
    orderTable
        .join(customerTable, StreamsWireFormatsIT::customerOf, StreamsWireFormatsIT::concat)
        .toStream()
        .to(out);
    start(builder, config);

    byte[][] customerKeys = new byte[4][];
    for (int c = 0; c < 4; c++) {
      customerKeys[c] = Servers.payload(c % 2 == 0 ? 12 : 2_000, 100 + c); // small and ref keys
      customerKeys[c][0] = 2;
    }
    Map<String, byte[]> customerValues = new HashMap<>();
    Map<String, byte[]> orderValues = new HashMap<>();
    Map<String, byte[]> orderKeys = new HashMap<>();
    Map<String, Object> producerConfig = Servers.producer(cc);
    producerConfig.put(
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
      for (int round = 0; round < 3; round++) {
        for (int c = 0; c < 4; c++) {
          byte[] v = amount(round * 10 + c, (round + c) % 2 == 0 ? LARGE : SMALL);
          producer.send(new ProducerRecord<>(customers, customerKeys[c], v));
          customerValues.put(HEX.formatHex(customerKeys[c]), v);
        }
        producer.flush();
        for (int o = 0; o < 8; o++) {
          byte[] key = Servers.payload(o % 2 == 0 ? 2_000 : 16, 200 + o);
          key[0] = 3;
          byte[] fk = customerKeys[(o + round) % 4];
          byte[] v = order(fk, (o + round) % 3 == 0 ? SMALL : LARGE, round * 100 + o);
          producer.send(new ProducerRecord<>(orders, key, v));
          orderValues.put(HEX.formatHex(key), v);
          orderKeys.put(HEX.formatHex(key), key);
        }
        producer.flush();
      }
    }
    Map<String, byte[]> expected = new HashMap<>();
    orderValues.forEach(
        (k, v) -> expected.put(k, concat(v, customerValues.get(HEX.formatHex(customerOf(v))))));

    Map<String, Object> consumerConfig = Servers.consumer(cc, Servers.unique("g"));
    consumerConfig.put(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ClaimCheckDeserializer.class.getName());
    Map<String, byte[]> got =
        readUntil(
            out,
            cc,
            consumerConfig,
            m ->
                m.keySet().equals(expected.keySet())
                    && expected.entrySet().stream()
                        .allMatch(e -> Arrays.equals(m.get(e.getKey()), e.getValue())));
    assertThat(got.keySet()).isEqualTo(expected.keySet());
    expected.forEach(
        (k, v) -> assertThat(got.get(k)).as("order %s", k.substring(0, 8)).isEqualTo(v));
    assertNothingDeadLettered(cc);
  }

  /** An order value: the customer key's length (4), the customer key, a body of {@code size}. */
  private static byte[] order(byte[] customerKey, int size, long seed) {
    byte[] body = Servers.payload(size, seed);
    return ByteBuffer.allocate(1 + 4 + customerKey.length + size)
        .put((byte) 4)
        .putInt(customerKey.length)
        .put(customerKey)
        .put(body)
        .array();
  }

  private static byte[] customerOf(byte[] order) {
    ByteBuffer b = ByteBuffer.wrap(order, 1, order.length - 1);
    byte[] key = new byte[b.getInt()];
    b.get(key);
    return key;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void headersForwardedToTopicsWrittenWithAnotherSerdeAreReadBackByTheirBytes() {
    String in = Servers.unique("in");
    String bytesOut = Servers.unique("bytes-out");
    String prefixOut = Servers.unique("prefix-out");
    String stringOut = Servers.unique("string-out");
    String claimedOut = Servers.unique("claimed-out");
    for (String t : List.of(in, bytesOut, prefixOut, stringOut, claimedOut)) {
      Servers.kafka().createTopic(t, 1);
    }
    Map<String, Object> cc = claimCheck();
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, byte[]> values = builder.stream(in); // redeemed by the default serde
    Produced<String, byte[]> raw = Produced.with(Serdes.String(), Serdes.ByteArray());
    values.to(bytesOut, raw); // the whole value inline, beside the input's marker
    values.mapValues(v -> Arrays.copyOf(v, 20)).to(prefixOut, raw);
    values
        .mapValues(v -> HEX.formatHex(v, 0, Math.min(16, v.length)))
        .to(stringOut, Produced.with(Serdes.String(), Serdes.String()));
    values.to(claimedOut); // and one sink with the claim-check serde, from the same node
    start(builder, streamsConfig(cc));

    int[] sizes = {10, 500, LARGE, 300_000, 30, 2 * LARGE};
    Map<String, byte[]> sent = new HashMap<>();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      for (int i = 0; i < sizes.length; i++) {
        byte[] v = Servers.payload(sizes[i], 300 + i);
        v[0] = 5;
        producer.send(new ProducerRecord<>(in, "k" + i, v));
        sent.put("k" + i, v);
      }
    }

    Map<String, Object> consumer = Servers.consumer(cc, Servers.unique("g"));
    java.util.Set<String> marked = new java.util.TreeSet<>();
    Map<String, byte[]> whole =
        readUntil(bytesOut, consumer, m -> m.size() == sizes.length, marked);
    Map<String, byte[]> prefixes =
        readUntil(prefixOut, consumer, m -> m.size() == sizes.length, marked);
    Map<String, byte[]> claimed =
        readUntil(claimedOut, cc, consumer, m -> m.size() == sizes.length);
    Map<String, Object> strings = Servers.consumer(cc, Servers.unique("g"));
    strings.put(ClaimCheckSerdeConfig.VALUE_SERDE, Serdes.StringSerde.class.getName());
    Map<String, String> hex = new HashMap<>();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(strings)) {
      c.subscribe(List.of(stringOut));
      for (ConsumerRecord<String, String> r :
          Servers.pollAll(c, sizes.length, Duration.ofSeconds(90))) {
        hex.put(r.key(), r.value());
      }
    }
    sent.forEach(
        (k, v) -> {
          assertThat(whole.get(k)).as("%s as bytes", k).isEqualTo(v);
          assertThat(prefixes.get(k)).as("%s's prefix", k).isEqualTo(Arrays.copyOf(v, 20));
          assertThat(claimed.get(k)).as("%s claim-checked again", k).isEqualTo(v);
          assertThat(hex.get(k))
              .as("%s as a string", k)
              .isEqualTo(HEX.formatHex(v, 0, Math.min(16, v.length)));
        });
    // The case itself: the input's marker was forwarded beside the inline bytes of each large
    // value.
    assertThat(marked)
        .as("keys whose forwarded marker sits beside inline bytes")
        .isEqualTo(new java.util.TreeSet<>(List.of("k2", "k3", "k5")));
    assertNothingDeadLettered(cc);
  }

  /**
   * Reads {@code topic} from the start with {@code config} (byte[] values through the claim-check
   * deserializer; keys as the config says, shown as hex when bytes), keeping each key's latest
   * value, until {@code done} holds or 90 s passed; fails on any deserialization error.
   */
  private static Map<String, byte[]> readUntil(
      String topic,
      Map<String, Object> cc,
      Map<String, Object> config,
      Predicate<Map<String, byte[]>> done) {
    return readUntil(topic, config, done, new java.util.HashSet<>());
  }

  /** As above, adding the keys of records that carry the value marker to {@code marked}. */
  private static Map<String, byte[]> readUntil(
      String topic,
      Map<String, Object> config,
      Predicate<Map<String, byte[]>> done,
      java.util.Set<String> marked) {
    Map<String, Object> c = new HashMap<>(config);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, Servers.unique("read"));
    Map<String, byte[]> latest = new HashMap<>();
    try (KafkaConsumer<Object, byte[]> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(topic));
      long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (!done.test(latest) && System.nanoTime() < end) {
        for (ConsumerRecord<Object, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          String key = r.key() instanceof byte[] b ? HEX.formatHex(b) : String.valueOf(r.key());
          latest.put(key, r.value());
          if (r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null) {
            marked.add(key);
          }
        }
      }
    }
    return latest;
  }

  /**
   * No record reached the handler, and the dead-letter topic is empty: the app is closed first, so
   * its producer has flushed whatever any handler dead-lettered, and the topic's end offset is
   * exact (no quiet period to wait out).
   */
  private void assertNothingDeadLettered(Map<String, Object> cc) {
    assertThat(FAILURES).as("records handed to the deserialization handler").isEmpty();
    assertThat(streams.close(Duration.ofSeconds(30))).as("the app closed, flushed").isTrue();
    TopicPartition tp = new TopicPartition(dlq, 0);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(Servers.consumer(cc, Servers.unique("dlq")))) {
      assertThat(consumer.endOffsets(List.of(tp)).get(tp)).as("dead-lettered").isZero();
    }
  }
}
