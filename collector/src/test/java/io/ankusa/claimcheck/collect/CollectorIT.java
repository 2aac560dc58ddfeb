package io.ankusa.claimcheck.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The collector against a real KRaft broker and S3Proxy (through the fault proxy): the issue's
 * cases, each on its own tenant and topics. Time is moved by giving the collector a clock that
 * reads later, never by sleeping through a grace.
 */
class CollectorIT {

  private static final Clock LATER = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));

  private static FaultProxy proxy;
  private static String bucket;
  private static Admin admin;
  private static KafkaProducer<byte[], byte[]> producer;

  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeAll
  static void start() {
    bucket = EmbeddedS3.shared().createBucket(unique("gc"));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    admin = Admin.create(Map.of("bootstrap.servers", EmbeddedKafka.shared().bootstrapServers()));
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    producer = new KafkaProducer<>(p);
  }

  @AfterEach
  void closeAll() throws Exception {
    proxy.clear();
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  @AfterAll
  static void stop() {
    producer.close();
    admin.close();
    proxy.close();
  }

  @Test
  void deleteRecordsFreesExactlyTheirPacksAndTheRestStillRedeem() throws Exception {
    String tenant = unique("t");
    String topic = unique("orders");
    createTopic(topic, 1, "delete");
    ClaimCheck flat = claimCheck(tenant, "flat");
    ClaimCheck sharded = claimCheck(tenant, "sharded");
    List<ClaimRef> refs = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ClaimRef ref = (i % 2 == 0 ? flat : sharded).checkIn(payload(i));
      refs.add(ref);
      send(topic, null, RefCodec.encode(ref), null, false);
    }
    ClaimRef keyRef = flat.checkInKey(payload(99));
    send(topic, RefCodec.encode(keyRef), "inline".getBytes(StandardCharsets.UTF_8), null, true);
    admin
        .deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(3)))
        .all()
        .get(30, TimeUnit.SECONDS);

    GcReport dry = run(tenant, topic, Clock.systemUTC(), false);
    assertThat(dry.status()).isEqualTo(GcReport.Status.OK);
    assertThat(dry.deletable()).as("within the grace nothing is deletable").isEmpty();
    assertThat(dry.youngPacks()).isEqualTo(3);

    GcReport report = run(tenant, topic, LATER, true);
    assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
    assertThat(report.scannedRecords()).isEqualTo(4);
    assertThat(report.livePacks()).isEqualTo(4);
    assertThat(report.listedPacks()).isEqualTo(7);
    assertThat(packIds(report.deleted()))
        .containsExactlyInAnyOrderElementsOf(packIds(refs.subList(0, 3)));
    assertThat(report.deleted()).anySatisfy(p -> assertThat(p.key()).matches(".*/../.{16}"));
    ClaimStore store = stores(tenant).get(0);
    for (ClaimRef gone : refs.subList(0, 3)) {
      assertThat(exists(store, gone)).isFalse();
    }
    for (ClaimRef kept : refs.subList(3, 6)) {
      assertThat(flat.redeem(kept, deadline(flat)).get()).isEqualTo(payload(refs.indexOf(kept)));
    }
    assertThat(flat.redeem(keyRef, deadline(flat)).get()).isEqualTo(payload(99));
  }

  @Test
  void compactedTopicKeepsThePacksOfTheValuesLeftAndFreesTheCompactedOnes() throws Exception {
    String tenant = unique("t");
    String topic = unique("app-store-changelog");
    createTopic(
        topic,
        1,
        Map.of(
            "cleanup.policy",
            "compact",
            "segment.ms",
            "100",
            "min.cleanable.dirty.ratio",
            "0",
            "min.compaction.lag.ms",
            "0",
            "delete.retention.ms",
            "0"));
    ClaimCheck cc = claimCheck(tenant, "flat");
    List<ClaimRef> refs = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      refs.add(cc.checkIn(payload(i)));
      send(
          topic,
          ("k" + (i % 3)).getBytes(StandardCharsets.UTF_8),
          RefCodec.encode(refs.get(i)),
          null,
          true);
    }
    // The cleaner never touches the active segment: later records roll it (segment.ms), until
    // the log really holds only the newest value of each key (and the newest roll record).
    List<ClaimRef> left = List.copyOf(refs.subList(6, 9));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    List<ClaimRef> held;
    do {
      Thread.sleep(250);
      send(
          topic,
          "roll".getBytes(StandardCharsets.UTF_8),
          "inline".getBytes(StandardCharsets.UTF_8),
          null,
          true);
      held = valueRefs(topic);
    } while (!held.equals(left) && System.nanoTime() < until);
    assertThat(held).as("the log cleaner compacted the topic").isEqualTo(left);

    GcReport report = run(tenant, topic, LATER, true);
    assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
    assertThat(report.livePacks()).isEqualTo(3);
    assertThat(packIds(report.deleted()))
        .containsExactlyInAnyOrderElementsOf(packIds(refs.subList(0, 6)));
    ClaimStore store = stores(tenant).get(0);
    for (int i = 0; i < 6; i++) {
      assertThat(exists(store, refs.get(i))).as("compacted away: value %d", i).isFalse();
    }
    for (int i = 6; i < 9; i++) {
      assertThat(cc.redeem(refs.get(i), deadline(cc)).get()).isEqualTo(payload(i));
    }
  }

  @Test
  void recordWithATimestampYearsAgoKeepsItsPackUntilRetentionDeletesIt() throws Exception {
    String tenant = unique("t");
    String topic = unique("events");
    createTopic(
        topic,
        1,
        Map.of(
            "cleanup.policy",
            "delete",
            "retention.ms",
            String.valueOf(Duration.ofDays(1).toMillis())));
    ClaimCheck cc = claimCheck(tenant, "flat");
    long years = Instant.parse("2015-01-01T00:00:00Z").toEpochMilli();
    ClaimRef expired = cc.checkIn(payload(1));
    send(topic, null, RefCodec.encode(expired), years, false);
    // One batch, so one segment whose newest record is recent: retention keeps both its records,
    // the year-old one too; the first segment (only year-old records) is past retention.
    ClaimRef old = cc.checkIn(payload(2));
    ClaimRef recent = cc.checkIn(payload(3));
    sendOneBatch(
        topic,
        List.of(RefCodec.encode(old), RefCodec.encode(recent)),
        List.of(years, System.currentTimeMillis()));
    TopicPartition tp = new TopicPartition(topic, 0);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long logStart;
    do {
      Thread.sleep(250);
      logStart =
          admin
              .listOffsets(Map.of(tp, OffsetSpec.earliest()))
              .partitionResult(tp)
              .get(30, TimeUnit.SECONDS)
              .offset();
    } while (logStart == 0 && System.nanoTime() < until);
    assertThat(logStart).as("retention deleted the first segment").isEqualTo(1);
    assertThat(valueRefs(topic)).containsExactly(old, recent);

    GcReport report = run(tenant, topic, LATER, true);
    assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
    assertThat(report.livePacks()).isEqualTo(2);
    assertThat(packIds(report.deleted())).containsExactly(expired.packId().hex());
    assertThat(exists(stores(tenant).get(0), expired)).isFalse();
    assertThat(cc.redeem(old, deadline(cc)).get()).isEqualTo(payload(2));
    assertThat(cc.redeem(recent, deadline(cc)).get()).isEqualTo(payload(3));
  }

  @Test
  void keyReSentWhileTheCollectorRunsKeepsItsPack() throws Exception {
    String tenant = unique("t");
    String topic = unique("keyed");
    createTopic(topic, 1, "delete");
    ClaimCheck cc = claimCheck(tenant, "flat");
    byte[] key = payload(42);
    ClaimRef keyRef = cc.checkInKey(key);
    send(topic, RefCodec.encode(keyRef), "first".getBytes(StandardCharsets.UTF_8), null, true);
    admin
        .deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(1)))
        .all()
        .get(30, TimeUnit.SECONDS); // the key's last record is gone: its pack unreferenced
    ClaimRef orphan = cc.checkIn(payload(7)); // and one no record ever named
    // S3 lists times to the second (the sweep allows for it): let both be listed before T0.
    Thread.sleep(2100);
    Collector collector =
        Collector.create(kafka(), stores(tenant), Clock.systemUTC(), Ticker.system());
    GcOptions options =
        GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic)))
            .withGrace(Duration.ZERO, true)
            .withDelete(true);
    List<ClaimRef> resent = new ArrayList<>();
    GcReport report =
        collector.run(
            options,
            new Progress() {
              @Override
              public void marked(long records, long livePacks) {
                // after T0 and the end offsets, before the listing and the sweep: the key comes
                // back
                ClaimRef again = cc.checkInKey(key.clone());
                resent.add(again);
                send(
                    topic,
                    RefCodec.encode(again),
                    "second".getBytes(StandardCharsets.UTF_8),
                    null,
                    true);
              }
            });
    assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
    assertThat(resent).containsExactly(keyRef);
    assertThat(report.scannedRecords()).as("the re-sent record is past the end offset").isZero();
    assertThat(packIds(report.deleted())).containsExactly(orphan.packId().hex());
    assertThat(exists(stores(tenant).get(0), keyRef)).isTrue();
    assertThat(cc.redeem(keyRef, deadline(cc)).get()).isEqualTo(key);
  }

  /**
   * The key is re-sent after the sweep confirmed its pack as old and before the delete goes out:
   * the rewrite lands (the listing shows its new time) and then the batch delete removes the pack.
   * The re-send must still end with its pack stored once its record is sent.
   */
  @Test
  void keyReSentBetweenTheListingAndTheDeleteKeepsItsPack() throws Exception {
    String tenant = unique("t");
    String topic = unique("keyed");
    createTopic(topic, 1, "delete");
    ClaimCheck cc = claimCheck(tenant, "flat");
    byte[] key = payload(43);
    ClaimRef keyRef = cc.checkInKey(key);
    send(topic, RefCodec.encode(keyRef), "first".getBytes(StandardCharsets.UTF_8), null, true);
    admin
        .deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(1)))
        .all()
        .get(30, TimeUnit.SECONDS); // the key's last record is gone: its pack unreferenced
    Thread.sleep(2100); // S3 lists times to the second: the first write is listed before T0
    ClaimStore real = stores(tenant).get(0);
    String packKey = KeyLayout.FLAT.key(tenant, keyRef.packId().value());
    Instant firstWrite = listedAt(real, packKey);
    java.util.concurrent.CompletableFuture<ClaimRef> resent =
        new java.util.concurrent.CompletableFuture<>();
    ClaimStore hooked =
        new BeforeDeleteStore(
            real,
            () -> {
              new Thread(
                      () -> { // the producer: check the key in again, then send its record
                        try {
                          ClaimRef again = cc.checkInKey(key.clone());
                          send(
                              topic,
                              RefCodec.encode(again),
                              "second".getBytes(StandardCharsets.UTF_8),
                              null,
                              true);
                          resent.complete(again);
                        } catch (RuntimeException e) {
                          resent.completeExceptionally(e);
                        }
                      },
                      "re-send")
                  .start();
              long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
              while (System.nanoTime() < until && listedAt(real, packKey).equals(firstWrite)) {
                Thread.onSpinWait(); // until the re-send's rewrite has landed: then the delete goes
                // out
              }
              assertThat(listedAt(real, packKey))
                  .as("the rewrite landed before the delete")
                  .isAfter(firstWrite);
            });
    GcReport report =
        Collector.create(kafka(), List.of(hooked), Clock.systemUTC(), Ticker.system())
            .run(
                GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic)))
                    .withGrace(Duration.ZERO, true)
                    .withDelete(true),
                Progress.NONE);

    assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
    assertThat(resent.get(60, TimeUnit.SECONDS)).isEqualTo(keyRef);
    assertThat(exists(real, keyRef)).as("the re-sent record's pack").isTrue();
    assertThat(cc.redeem(keyRef, deadline(cc)).get()).isEqualTo(key);
  }

  /** The time {@code store} lists {@code key} with, or {@link Instant#MIN} when it is absent. */
  private static Instant listedAt(ClaimStore store, String key) {
    return store.list(key, null, Duration.ofSeconds(10)).join().objects().stream()
        .filter(o -> o.key().equals(key))
        .map(o -> o.lastModified())
        .findFirst()
        .orElse(Instant.MIN);
  }

  @Test
  void unreferencedPackIsCollectedOnlyOnceTheGracePassed() throws Exception {
    String tenant = unique("t");
    String topic = unique("sends");
    createTopic(topic, 1, "delete");
    ClaimCheck cc = claimCheck(tenant, "flat");
    ClaimRef orphan = cc.checkIn(payload(7)); // the send failed after the upload
    ClaimRef sent = cc.checkIn(payload(8));
    send(topic, null, RefCodec.encode(sent), null, false);

    GcReport early = run(tenant, topic, Clock.systemUTC(), true);
    assertThat(early.deleted()).isEmpty();
    assertThat(early.youngPacks()).isEqualTo(1);
    assertThat(exists(stores(tenant).get(0), orphan)).isTrue();

    Clock justBefore = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(50));
    assertThat(run(tenant, topic, justBefore, true).deleted()).isEmpty();

    GcReport late = run(tenant, topic, LATER, true);
    assertThat(packIds(late.deleted())).containsExactly(orphan.packId().hex());
    assertThat(exists(stores(tenant).get(0), orphan)).isFalse();
    assertThat(exists(stores(tenant).get(0), sent)).isTrue();
  }

  @Test
  void packWrittenJustBeforeT0WhoseRecordLandsAfterTheEndOffsetIsKept() throws Exception {
    String tenant = unique("t");
    String topic = unique("race");
    createTopic(topic, 1, "delete");
    ClaimCheck cc = claimCheck(tenant, "flat");
    send(topic, null, RefCodec.encode(cc.checkIn(payload(1))), null, false);
    ClaimRef racing = cc.checkIn(payload(2)); // written just before T0, sent just after
    Collector collector =
        Collector.create(kafka(), stores(tenant), Clock.systemUTC(), Ticker.system());
    GcOptions options =
        GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic)))
            .withGrace(GcOptions.MIN_GRACE, false)
            .withDelete(true);
    GcReport report =
        collector.run(
            options,
            new Progress() {
              @Override
              public void endOffsetsNoted(int partitions, long records) {
                send(topic, null, RefCodec.encode(racing), null, false);
              }
            });
    assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
    assertThat(report.scannedRecords())
        .as("the record past the end offset is not read")
        .isEqualTo(1);
    assertThat(report.youngPacks()).isEqualTo(1);
    assertThat(report.deleted()).isEmpty();
    assertThat(cc.redeem(racing, deadline(cc)).get()).isEqualTo(payload(2));
  }

  @Test
  void storeDownDuringTheRunDeletesNothing() throws Exception {
    String tenant = unique("t");
    String topic = unique("down");
    createTopic(topic, 1, "delete");
    ClaimCheck cc = claimCheck(tenant, "flat");
    ClaimRef orphan = cc.checkIn(payload(3));
    List<ClaimStore> stores = stores(tenant);
    proxy.down();
    GcReport report =
        Collector.create(kafka(), stores, LATER, Ticker.system())
            .run(
                GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic)))
                    .withDelete(true)
                    .withTimeouts(Duration.ofMinutes(1), Duration.ofSeconds(3)),
                Progress.NONE);
    proxy.up();
    assertThat(report.status()).isEqualTo(GcReport.Status.ABORTED);
    assertThat(report.message()).contains("nothing deleted", "store 0", "could not be listed");
    assertThat(report.deleted()).isEmpty();
    assertThat(exists(stores.get(0), orphan)).isTrue();
  }

  @Test
  void noMatchingTopicDeletesNothing() {
    String tenant = unique("t");
    GcReport report =
        Collector.create(kafka(), stores(tenant), LATER, Ticker.system())
            .run(
                GcOptions.of(tenant, Pattern.compile("no-such-topic-" + tenant)).withDelete(true),
                Progress.NONE);
    assertThat(report.status()).isEqualTo(GcReport.Status.ABORTED);
    assertThat(report.message()).contains("no topic matches");
  }

  // --- helpers

  private GcReport run(String tenant, String topic, Clock clock, boolean delete) {
    return Collector.create(kafka(), stores(tenant), clock, Ticker.system())
        .run(
            GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic))).withDelete(delete),
            Progress.NONE);
  }

  private Map<String, Object> config(String tenant, String layout) {
    Map<String, Object> m =
        EmbeddedS3.shared().claimCheckConfig("s3://" + bucket, proxy.endpoint());
    m.put("claimcheck.tenant", tenant);
    m.put("claimcheck.key.layout", layout);
    m.put("claimcheck.threshold.bytes", "1");
    return m;
  }

  private ClaimCheck claimCheck(String tenant, String layout) {
    ClaimCheck cc = ClaimCheck.open(config(tenant, layout));
    closing.add(cc);
    return cc;
  }

  private List<ClaimStore> stores(String tenant) {
    List<ClaimStore> stores = new ArrayList<>();
    for (StoreSpec spec : new ClaimCheckConfig(config(tenant, "flat")).stores()) {
      ClaimStore s = spec.open();
      closing.add(s);
      stores.add(s);
    }
    return stores;
  }

  private static Map<String, Object> kafka() {
    return Map.of("bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
  }

  private static void createTopic(String topic, int partitions, String policy) throws Exception {
    createTopic(topic, partitions, Map.of("cleanup.policy", policy));
  }

  private static void createTopic(String topic, int partitions, Map<String, String> configs)
      throws Exception {
    admin
        .createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
        .all()
        .get(30, TimeUnit.SECONDS);
  }

  /** Sends {@code values} (refs, unkeyed) with {@code timestamps} to partition 0 in one batch. */
  private static void sendOneBatch(String topic, List<byte[]> values, List<Long> timestamps) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 2000);
    try (KafkaProducer<byte[], byte[]> batching = new KafkaProducer<>(p)) {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (int i = 0; i < values.size(); i++) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(topic, 0, timestamps.get(i), null, values.get(i));
        r.headers().add("ankusa.claimcheck.value", new byte[] {'1'});
        sent.add(batching.send(r));
      }
      batching.flush();
      for (java.util.concurrent.Future<?> f : sent) {
        f.get(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The refs in the values of every record {@code topic} holds now, in offset order. */
  private static List<ClaimRef> valueRefs(String topic) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<ClaimRef> refs = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
      List<TopicPartition> parts =
          consumer.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > until) {
          throw new AssertionError("could not read " + topic + " to its end " + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.value() != null && RefCodec.isRef(r.value())) {
            refs.add(RefCodec.decode(r.value()));
          }
        }
      }
    }
    return refs;
  }

  private static void send(String topic, byte[] key, byte[] value, Long timestamp, boolean keyed) {
    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, timestamp, key, value);
    if (key != null && RefCodec.isRef(key)) {
      r.headers().add("ankusa.claimcheck.key", new byte[] {'1'});
    }
    if (value != null && RefCodec.isRef(value)) {
      r.headers().add("ankusa.claimcheck.value", new byte[] {'1'});
    }
    try {
      producer.send(r).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static boolean exists(ClaimStore store, ClaimRef ref) throws Exception {
    for (KeyLayout l : KeyLayout.values()) {
      try {
        store
            .getRange(
                l.key(ref.tenant().value(), ref.packId().value()), 0, 1, Duration.ofSeconds(10))
            .get();
        return true;
      } catch (ExecutionException e) {
        if (StoreException.of(e).kind() != StoreException.Kind.NOT_FOUND) {
          throw e;
        }
      }
    }
    return false;
  }

  private static Set<String> packIds(List<?> packsOrRefs) {
    return packsOrRefs.stream()
        .map(o -> o instanceof StoredPack p ? p.packId().hex() : ((ClaimRef) o).packId().hex())
        .collect(Collectors.toSet());
  }

  private static long deadline(ClaimCheck cc) {
    return cc.ticker().read() + TimeUnit.SECONDS.toNanos(20);
  }

  private static byte[] payload(int i) {
    return ("payload-" + i + "-" + "x".repeat(100 + i)).getBytes(StandardCharsets.UTF_8);
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
