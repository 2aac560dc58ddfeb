package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.collect.Collector;
import io.ankusa.claimcheck.collect.GcOptions;
import io.ankusa.claimcheck.collect.GcReport;
import io.ankusa.claimcheck.collect.Progress;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long-lived Kafka Streams app over claim-checked values (threshold 64 bytes, so most are refs)
 * under collection: repartition topics (a KStream#groupBy of plain refs, a KTable#groupBy of {@code
 * Change} pairs), changelogs (aggregate, reduce, windowed store, suppress buffer, FK-join stores),
 * a windowed aggregation behind {@code suppress}, and a foreign-key join. The collector runs over
 * every topic of the app (one prefix), forced and deleting: while the app produces with a grace
 * that covers a record in flight ({@link #DURING_RUN_GRACE}; one FK-join response record is held in
 * flight across a collection, its claim checked in before T0, its record landing after the end
 * offsets were noted), then with grace 0 once the app is quiet and again once it is stopped;
 * afterwards every ref anywhere in every record of every topic (key, value, headers) redeems, and
 * the state the app restores from its changelogs after its local state is wiped equals, byte for
 * byte, the state it had before. Real broker, real S3.
 */
class StreamsUnderCollectionIT {

  private static final int USERS = 6;
  private static final int ORDERS = 40;
  private static final List<String> KEY_VALUE_STORES =
      List.of("per-bucket", "per-parity", "orders", "profiles");

  /**
   * The grace of the collections while the app produces: it must cover a record whose claim the app
   * checked in but whose send has not landed yet (cli/README: the write deadline plus {@code
   * delivery.timeout.ms}, 2 min by default for the app's producers). With grace 0 that record's
   * pack is unreferenced at the noted end offsets and deleted: the held response record shows it on
   * every run, a loaded machine showed it once. Once the app is quiet or stopped nothing is in
   * flight, and those collections run with grace 0 and delete what compaction freed.
   */
  private static final Duration DURING_RUN_GRACE = Duration.ofMinutes(3);

  @TempDir Path stateDir;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private KafkaStreams streams;
  private final AtomicReference<Throwable> appFailure = new AtomicReference<>();

  @AfterEach
  void closeAll() throws Exception {
    if (streams != null) {
      streams.close(Duration.ofSeconds(10));
    }
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  @Test
  void everyRecordOfEveryTopicAndTheRestoredStateRedeemAfterCollectionsDuringTheRun()
      throws Exception {
    String prefix = Servers.unique("s15");
    String tenant = Servers.unique("gc");
    FaultProxy proxy = FaultProxy.inFrontOf(Servers.s3());
    closing.add(proxy);
    Map<String, Object> cc = Servers.oneStore(proxy, Servers.s3().createBucket(prefix));
    cc.put("claimcheck.tenant", tenant);
    cc.put("claimcheck.threshold.bytes", "64");
    String orders = prefix + "-orders";
    String profiles = prefix + "-profiles";
    for (String t : List.of(orders, profiles)) {
      Servers.kafka().createTopic(t, 2);
    }
    for (String out : List.of("buckets", "parities", "windows", "joined")) {
      Servers.kafka().createTopic(prefix + "-out-" + out, 1); // none appears during a collection
    }
    Properties config = streamsConfig(cc, prefix + "-app");
    streams = start(topology(prefix), config);

    long base = System.currentTimeMillis() - Duration.ofMinutes(5).toMillis();
    List<GcReport> runs = new ArrayList<>();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Servers.producer(cc))) {
      for (int half = 0; half < 2; half++) {
        // In the second half one FK-join response record is held in flight (its claim checked in,
        // the record not yet sent) from before T0 until the collection noted its end offsets.
        HoldingResponseInterceptor.Hold hold = half == 1 ? HoldingResponseInterceptor.arm() : null;
        try {
          for (int i = half * ORDERS / 2; i < (half + 1) * ORDERS / 2; i++) {
            if (i % 3 == 0) { // each user's profile shrinks and grows across the threshold
              int j = i / 3;
              int size = (j / USERS) % 2 == 0 ? 20 + j : 100 + 3 * j;
              producer.send(
                  new ProducerRecord<>(
                      profiles,
                      null,
                      base + i * 1000L,
                      "user-" + j % USERS,
                      Servers.payload(size, 7000 + i)));
            }
            producer.send(
                new ProducerRecord<>(
                    orders,
                    null,
                    base + i * 1000L,
                    "order-" + i,
                    Servers.payload(i % 5 == 0 ? 30 : 80 + 7 * i, 8000 + i)));
          }
          producer.flush();
          Thread.sleep(1500);
          if (hold == null) { // while the app works through the records
            runs.add(collect(cc, tenant, prefix, DURING_RUN_GRACE, Progress.NONE));
            continue;
          }
          ClaimRef held = hold.awaitHeld(Duration.ofSeconds(60));
          assertThat(held).as("a subscription-response record with a ref was held").isNotNull();
          Thread.sleep(2100); // its pack is listed as written before T0 (S3 lists to the second)
          runs.add(
              collect(
                  cc,
                  tenant,
                  prefix,
                  DURING_RUN_GRACE,
                  new Progress() {
                    @Override
                    public void endOffsetsNoted(int partitions, long records) {
                      hold.release(); // the record lands past the noted end offsets
                    }
                  }));
          ClaimCheck check = ClaimCheck.open(cc);
          closing.add(check);
          assertThatCode(
                  () ->
                      check
                          .redeem(held, check.ticker().read() + TimeUnit.SECONDS.toNanos(20))
                          .get(30, TimeUnit.SECONDS))
              .as("the claim of the response record in flight during the collection")
              .doesNotThrowAnyException();
        } finally {
          if (hold != null) {
            hold.release();
          }
        }
      }
      // Stream time past every window, so suppress emits them all.
      producer.send(
          new ProducerRecord<>(
              orders,
              null,
              base + (ORDERS + 60) * 1000L,
              "order-last",
              Servers.payload(200, 9999)));
      producer.flush();
    }
    awaitQuiet(prefix);
    runs.add(collect(cc, tenant, prefix, Duration.ZERO, Progress.NONE));

    Map<String, String> before = state(streams);
    assertThat(before.keySet())
        .as("every store has entries")
        .anyMatch(k -> k.startsWith("per-bucket/"))
        .anyMatch(k -> k.startsWith("per-parity/"))
        .anyMatch(k -> k.startsWith("orders/"))
        .anyMatch(k -> k.startsWith("profiles/"))
        .anyMatch(k -> k.startsWith("per-user-window/"));

    // Leaving the group, so the restarted app is not held until these members' session timeout.
    streams.close(
        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(30)));
    streams.cleanUp(); // the local state is gone: only the changelogs can restore it
    runs.add(collect(cc, tenant, prefix, Duration.ZERO, Progress.NONE));

    for (GcReport r : runs) {
      assertThat(r.status()).as(r.message()).isEqualTo(GcReport.Status.OK);
    }
    assertThat(runs.stream().mapToLong(r -> r.deleted().size()).sum())
        .as("the collections deleted packs no record names any more (compacted away)")
        .isPositive();

    List<String> failures = new ArrayList<>();
    Map<String, Integer> refsPerTopic = redeemEveryRef(cc, prefix, failures);
    assertThat(failures).as("refs that no longer redeem").isEmpty();
    assertThat(refsPerTopic.keySet())
        .as("refs in repartition topics and changelogs alike")
        .anyMatch(t -> t.endsWith("-repartition"))
        .anyMatch(t -> t.endsWith("-changelog"));

    streams = start(topology(prefix), config);
    Map<String, String> restored = state(streams);
    assertThat(restored).as("the state restored from the changelogs").isEqualTo(before);
  }

  /** The app: every operator the issue names, all values through the default ClaimCheckSerde. */
  private static StreamsBuilder topology(String prefix) {
    StreamsBuilder b = new StreamsBuilder();
    KStream<String, byte[]> orders = b.stream(prefix + "-orders");
    KTable<String, byte[]> profiles = b.table(prefix + "-profiles", Materialized.as("profiles"));

    orders
        .groupBy((k, v) -> "bucket-" + (v.length % 3)) // repartition: plain refs
        .aggregate(
            () -> new byte[0],
            (k, v, agg) -> capped(agg, v),
            Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as("per-bucket"))
        .toStream()
        .to(prefix + "-out-buckets");

    // Repartition records are Change pairs: a user stays in its group, so one record carries its
    // new and its old profile, one inline and one a ref when the profile crossed the threshold.
    profiles
        .groupBy((k, v) -> KeyValue.pair("users-" + (k.charAt(k.length() - 1) % 2), v))
        .reduce(
            StreamsUnderCollectionIT::xor,
            StreamsUnderCollectionIT::xor,
            Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as("per-parity"))
        .toStream()
        .to(prefix + "-out-parities");

    orders
        .selectKey((k, v) -> userOf(v)) // repartition, then a windowed store and suppress
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(5), Duration.ZERO))
        .reduce(
            StreamsUnderCollectionIT::capped,
            Materialized.<String, byte[], WindowStore<Bytes, byte[]>>as("per-user-window")
                .withKeySerde(Serdes.String())) // so that suppress knows the windowed key serde
        .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
        .toStream((Windowed<String> w, byte[] v) -> w.key() + "@" + w.window().start())
        .to(prefix + "-out-windows");

    orders
        .toTable(Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as("orders"))
        .join(
            profiles,
            (Function<byte[], String>) StreamsUnderCollectionIT::userOf,
            StreamsUnderCollectionIT::capped) // FK join: subscription and response topics
        .toStream()
        .to(prefix + "-out-joined");
    return b;
  }

  private static String userOf(byte[] order) {
    return "user-" + ((order[0] & 0xff) % USERS);
  }

  /** The last 300 bytes of {@code a} then {@code b}. */
  private static byte[] capped(byte[] a, byte[] b) {
    byte[] all = new byte[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return Arrays.copyOfRange(all, Math.max(0, all.length - 300), all.length);
  }

  /** {@code a} XOR {@code b}, the shorter zero-padded: its own inverse, so adder and subtractor. */
  private static byte[] xor(byte[] a, byte[] b) {
    byte[] r = Arrays.copyOf(a, Math.max(a.length, b.length));
    for (int i = 0; i < b.length; i++) {
      r[i] ^= b[i];
    }
    return r;
  }

  private Properties streamsConfig(Map<String, Object> cc, String appId) {
    Properties p = new Properties();
    p.putAll(cc);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        ClaimCheckDeserializationExceptionHandler.class.getName());
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    // Repartition records stay (no purge within the test), so the collector must find their refs;
    // the changelogs roll and compact within the test, so records really go while it runs.
    p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, Integer.MAX_VALUE);
    p.put(StreamsConfig.producerPrefix("linger.ms"), 0);
    p.put(
        StreamsConfig.producerPrefix(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG),
        HoldingResponseInterceptor.class.getName());
    p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
    p.put(StreamsConfig.topicPrefix("segment.ms"), "1000");
    p.put(StreamsConfig.topicPrefix("min.cleanable.dirty.ratio"), "0");
    return p;
  }

  private KafkaStreams start(StreamsBuilder builder, Properties config) throws Exception {
    KafkaStreams s = new KafkaStreams(builder.build(config), config);
    s.setUncaughtExceptionHandler(
        e -> {
          appFailure.compareAndSet(null, e);
          return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    s.start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (s.state() != KafkaStreams.State.RUNNING && System.nanoTime() < until) {
      Thread.sleep(100);
    }
    assertThat(s.state()).isEqualTo(KafkaStreams.State.RUNNING);
    return s;
  }

  /** One collection over every topic of the app, as a user runs it with --grace G --force. */
  private GcReport collect(
      Map<String, Object> cc, String tenant, String prefix, Duration grace, Progress progress) {
    List<ClaimStore> stores = new ArrayList<>();
    for (StoreSpec spec : new ClaimCheckConfig(cc).stores()) {
      ClaimStore s = spec.open();
      closing.add(s);
      stores.add(s);
    }
    return Collector.create(
            Map.of("bootstrap.servers", Servers.kafka().bootstrapServers()),
            stores,
            Clock.systemUTC(),
            Ticker.system())
        .run(
            GcOptions.of(tenant, Pattern.compile(Pattern.quote(prefix) + "-.*"))
                .withGrace(grace, true)
                .withDelete(true),
            progress);
  }

  /** Waits until the app's topics stop growing (their end offsets are steady for 3 s). */
  private static void awaitQuiet(String prefix) throws Exception {
    Map<TopicPartition, Long> last = Map.of();
    long steadySince = System.nanoTime();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < until) {
      Map<TopicPartition, Long> now = endOffsets(prefix);
      if (!now.equals(last)) {
        last = now;
        steadySince = System.nanoTime();
      } else if (System.nanoTime() - steadySince > TimeUnit.SECONDS.toNanos(3)) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("the app's topics never settled: " + last);
  }

  private static Map<TopicPartition, Long> endOffsets(String prefix) {
    try (KafkaConsumer<byte[], byte[]> c = rawConsumer()) {
      List<TopicPartition> parts = partitions(c, prefix);
      return new java.util.HashMap<>(c.endOffsets(parts));
    }
  }

  /**
   * Reads every record of every topic of the app as bytes, finds every intact ref frame at any
   * offset of its key, value and header values, and redeems it; returns the refs found per topic
   * and adds one line per ref that does not redeem to {@code failures}.
   */
  private Map<String, Integer> redeemEveryRef(
      Map<String, Object> cc, String prefix, List<String> failures) throws Exception {
    Map<String, Integer> found = new TreeMap<>();
    ClaimCheck check = ClaimCheck.open(cc);
    closing.add(check);
    try (KafkaConsumer<byte[], byte[]> c = rawConsumer()) {
      List<TopicPartition> parts = partitions(c, prefix);
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("read every topic to its end").isLessThan(until);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          List<byte[]> fields = new ArrayList<>();
          fields.add(r.key());
          fields.add(r.value());
          for (Header h : r.headers()) {
            fields.add(h.value());
          }
          for (byte[] field : fields) {
            for (ClaimRef ref : refsIn(field)) {
              found.merge(r.topic(), 1, Integer::sum);
              try {
                check
                    .redeem(ref, check.ticker().read() + TimeUnit.SECONDS.toNanos(20))
                    .get(30, TimeUnit.SECONDS);
              } catch (Exception e) {
                failures.add(
                    r.topic()
                        + "-"
                        + r.partition()
                        + "@"
                        + r.offset()
                        + " "
                        + ref.packId().hex()
                        + ": "
                        + e.getCause());
              }
            }
          }
        }
      }
    }
    return found;
  }

  /** Every intact ref frame anywhere in {@code bytes} (null: none). */
  static List<ClaimRef> refsIn(byte[] bytes) {
    List<ClaimRef> refs = new ArrayList<>();
    if (bytes == null) {
      return refs;
    }
    byte[] magic = RefCodec.MAGIC;
    for (int i = 0; i + RefCodec.MIN_LENGTH <= bytes.length; i++) {
      if (!Arrays.equals(bytes, i, i + magic.length, magic, 0, magic.length)) {
        continue;
      }
      int length = magic.length + 2 + (bytes[i + magic.length + 1] & 0xff) + 4;
      if (i + length <= bytes.length) {
        byte[] frame = Arrays.copyOfRange(bytes, i, i + length);
        if (RefCodec.isRef(frame)) {
          refs.add(RefCodec.decode(frame));
        }
      }
    }
    return refs;
  }

  /**
   * Every entry of every store, queried through the app (so redeemed by its serde), as "store/key"
   * to the hex of the value; retried while the stores are still restoring.
   */
  private Map<String, String> state(KafkaStreams s) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      assertThat(appFailure.get())
          .as("the app stopped on an exception (a lost claim? a refused value?)")
          .isNull();
      try {
        Map<String, String> all = new TreeMap<>();
        for (String store : KEY_VALUE_STORES) {
          try (KeyValueIterator<String, byte[]> it =
              s.store(
                      StoreQueryParameters.fromNameAndType(
                          store, QueryableStoreTypes.<String, byte[]>keyValueStore()))
                  .all()) {
            it.forEachRemaining(
                kv -> all.put(store + "/" + kv.key, HexFormat.of().formatHex(kv.value)));
          }
        }
        try (KeyValueIterator<Windowed<String>, byte[]> it =
            s.store(
                    StoreQueryParameters.fromNameAndType(
                        "per-user-window", QueryableStoreTypes.<String, byte[]>windowStore()))
                .all()) {
          it.forEachRemaining(
              kv ->
                  all.put(
                      "per-user-window/" + kv.key.key() + "@" + kv.key.window().start(),
                      HexFormat.of().formatHex(kv.value)));
        }
        return all;
      } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
        if (System.nanoTime() > until) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String prefix) {
    List<TopicPartition> parts = new ArrayList<>();
    c.listTopics()
        .forEach(
            (topic, infos) -> {
              if (topic.startsWith(prefix + "-")) {
                infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
              }
            });
    return parts;
  }

  private static KafkaConsumer<byte[], byte[]> rawConsumer() {
    Map<String, Object> m = new java.util.HashMap<>();
    m.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    m.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    m.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    m.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    m.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    return new KafkaConsumer<>(m);
  }
}
