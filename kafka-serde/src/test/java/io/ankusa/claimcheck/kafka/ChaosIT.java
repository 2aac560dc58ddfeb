package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.cache.ClaimCache;
import io.ankusa.claimcheck.internal.reader.StoreStats;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.KStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded chaos run: producers, a plain consumer group and an exactly-once Streams app (a
 * pass-through, and a repartitioning {@code groupBy(...).aggregate(adder, subtractor)} whose values
 * cross the threshold both ways, checked against the same aggregation over plain bytes: {@link
 * ChaosAggregate}) work on a real KRaft broker and two stores, each behind its own fault proxy
 * ({@link ChaosStores}: a bucket of S3Proxy, and a container of Azurite — a second bucket where
 * Azurite is not installed, outside CI), every claim encrypted under an {@code aws-kms:} KEK of the
 * testkit's KMS stub behind a fault proxy too ({@link ChaosKms}), while {@link ChaosFaults}
 * switches the stores' and the broker's faults on and off, and the KMS's on a schedule of their
 * own; then the invariants are checked (nothing lost or altered, retriable answers only, no stored
 * object showing the plaintext planted in every value) and the figures printed. {@code
 * -Dchaos.seed} replays a schedule; {@code -Dchaos.minutes} and {@code -Dchaos.records} make the
 * run longer.
 */
class ChaosIT {

  private static final long MAX_POLL_INTERVAL_MS = 10_000;
  private static final long CACHE_MAX_BYTES = 4L << 20;
  static final String IN = "chaos-in";
  private static final String OUT = "chaos-out";
  private static final String DLQ = "chaos-dlq";

  /** The KMS's faults: fewer than the stores' (a KMS is called rarely), often enough to matter. */
  private static final ChaosFaults.Pacing KMS_PACING =
      new ChaosFaults.Pacing(2_500, 6_000, 800, 2_500);

  @TempDir Path stateDir;

  @Test
  void everyRecordArrivesByteIdenticalWhileStoresAndTheBrokerMisbehave() throws Exception {
    long seed = longProperty("chaos.seed", new SecureRandom().nextLong());
    // Half a minute: about one round of the stores' faults (ChaosFaults.STORE_PACING); each
    // schedule runs on until it has switched every kind on once.
    double minutes = doubleProperty("chaos.minutes", 0.5);
    long records = longProperty("chaos.records", Math.round(400 * minutes));
    System.out.printf(
        "CHAOS seed=%d minutes=%s records=%d (replay: -Dchaos.seed=%d)%n",
        seed, minutes, records, seed);
    ChaosLedger ledger = new ChaosLedger(seed);
    ChaosLedger.current = ledger;
    ExecutorService threads = Executors.newCachedThreadPool();
    AtomicBoolean stop = new AtomicBoolean();
    KafkaStreams streams = null;
    ChaosStores.startAzuriteEarly();
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        ChaosStores stores = ChaosStores.open(seed);
        ChaosKms kms = ChaosKms.start()) {
      System.out.printf(
          "CHAOS %.1fs: broker, stores %s and KMS (EmbeddedKms) up%n",
          ledger.seconds(System.nanoTime()), stores.description);
      kafka.createTopic(IN, 4);
      kafka.createTopic(OUT, 4);
      kafka.createTopic(DLQ, 1);
      kafka.createTopic(ChaosAggregate.OUT, 2);
      kafka.createTopic(ChaosAggregate.REFERENCE, 2);
      Map<String, Object> cc = claimCheck(stores, kms);
      try (ClaimCheck probe = ClaimCheck.open(cc)) { // shares the clients' reader
        ClaimCache<?> cache = ChaosRecorders.cacheOf(ReaderAccess.of(probe));
        streams = streams(kafka, cc, ledger);
        streams.start();
        System.out.printf("CHAOS %.1fs: clients opened%n", ledger.seconds(System.nanoTime()));
        long start = System.nanoTime();
        long chaosNanos = (long) (minutes * 60e9);
        long spacing = (long) (chaosNanos * 0.85 / Math.max(1, records));
        AtomicLong next = new AtomicLong();
        List<Future<?>> producers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          producers.add(
              threads.submit(
                  () ->
                      ChaosClients.produce(
                          producer(kafka, cc),
                          IN,
                          ledger,
                          next,
                          records,
                          id -> start + id * spacing,
                          stop)));
        }
        List<Future<?>> consumers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          consumers.add(
              threads.submit(
                  () ->
                      ChaosClients.consume(
                          consumer(kafka, cc, "chaos-plain"),
                          IN,
                          "plain",
                          ledger,
                          MAX_POLL_INTERVAL_MS,
                          stop)));
        }
        Map<String, Object> outConfig = consumer(kafka, cc, "chaos-out");
        outConfig.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumers.add(
            threads.submit(
                () ->
                    ChaosClients.consume(
                        outConfig, OUT, "streams-out", ledger, MAX_POLL_INTERVAL_MS, stop)));
        threads.submit(
            () -> {
              while (!stop.get()) {
                ledger.maxCacheBytes.accumulateAndGet(settledCacheBytes(cache), Math::max);
                sleepQuietly(100);
              }
            });

        Map<String, Object> replayConfig = consumer(kafka, cc, null);
        replayConfig.remove(ConsumerConfig.GROUP_ID_CONFIG);
        replayConfig.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1); // redeem the one record only
        try (KafkaConsumer<String, byte[]> replay = new KafkaConsumer<>(replayConfig)) {
          ChaosFaults.World world = new ChaosFaults.World(kafka, ledger, replay, IN);
          // The KMS's faults on a schedule of their own, over the stores' and the broker's.
          Random kmsRandom = new Random(seed ^ 0x4B4D53L);
          Future<?> kmsFaults =
              threads.submit(
                  () ->
                      ChaosFaults.run(
                          world,
                          List.of(),
                          kms.kinds(),
                          KMS_PACING,
                          kmsRandom,
                          start + chaosNanos));
          ChaosFaults.run(
              world,
              stores.stores,
              ChaosFaults.KINDS,
              ChaosFaults.STORE_PACING,
              new Random(seed),
              start + chaosNanos);
          kmsFaults.get(1, TimeUnit.MINUTES);
        } finally {
          kms.clear();
        }
        long chaosOver = System.nanoTime();
        for (Future<?> p : producers) {
          p.get(2, TimeUnit.MINUTES);
        }
        long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(45 + records / 10);
        long nextProgress = System.nanoTime();
        while (System.nanoTime() < drainUntil && !complete(ledger)) {
          if (System.nanoTime() >= nextProgress) {
            nextProgress += TimeUnit.SECONDS.toNanos(5);
            ledger.drainLog.add(progress(ledger, ReaderAccess.of(probe).stats(), stores, kms));
          }
          Thread.sleep(200);
        }
        ledger.drainLog.add(progress(ledger, ReaderAccess.of(probe).stats(), stores, kms));
        long drained = System.nanoTime();
        // The groupBy aggregation: both branches done, and agreeing, for 5 s.
        List<Map<String, byte[]>> sums =
            ChaosAggregate.settle(
                consumer(kafka, cc, null),
                kafka.bootstrapServers(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(90));

        // Clients still up and idle: every permit given back, nothing running or queued.
        int admitted = -1;
        Map<Integer, StoreStats> stats = Map.of();
        long settleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        do {
          Thread.sleep(200);
          admitted = ReaderAccess.of(probe).admitted();
          stats = ReaderAccess.of(probe).stats();
        } while (System.nanoTime() < settleUntil && !(admitted == 0 && idle(stats)));
        ledger.maxCacheBytes.accumulateAndGet(cache.weightedSize(), Math::max);

        stop.set(true);
        streams.close(Duration.ofSeconds(30));
        for (Future<?> c : consumers) {
          c.get(1, TimeUnit.MINUTES);
        }
        Set<Long> dlqIds = deadLetterIds(kafka);
        // What the stores really hold: no object may show the plaintext planted in every value.
        long[] scan = stores.scan(ChaosValue.MARKER);
        String encryption =
            String.format(
                "stores               %s%n"
                    + "encryption           aws-kms, KMS calls %s%n"
                    + "refs redeemed        %s%n"
                    + "plaintext marker     in %d of %d stored objects (%d bytes read raw)%n",
                stores.description,
                kms.calls(),
                ChaosLedger.sums(ledger.refs),
                scan[2],
                scan[0],
                scan[1]);
        long slotsExpected =
            ledger.produced.stream()
                .filter(id -> !dlqIds.contains(id))
                .map(id -> Math.floorMod(id, ChaosAggregate.SLOTS))
                .distinct()
                .count();
        long slotsCounted = sums.get(0).values().stream().mapToLong(ChaosAggregate::count).sum();
        boolean sumsEqual = ChaosAggregate.same(sums.get(0), sums.get(1));
        String aggregate =
            String.format(
                "%d groups, byte-identical to the reference: %s, slots" + " counted %d of %d",
                sums.get(0).size(), sumsEqual, slotsCounted, slotsExpected);
        String report =
            report(
                ledger,
                records,
                (chaosOver - start) / 1e9,
                (drained - chaosOver) / 1e9,
                admitted,
                stats,
                cache.maxBytes(),
                dlqIds,
                aggregate,
                encryption);
        System.out.println(report);
        Files.writeString(Path.of("target", "chaos-report-" + seed + ".txt"), report);

        Set<Long> lostPlain = missing(ledger.produced, ledger.verified("plain"));
        Set<Long> outOrDlq = new HashSet<>(ledger.verified("streams-out"));
        outOrDlq.addAll(dlqIds);
        Set<Long> lostStreams = missing(ledger.produced, outOrDlq);
        Set<Long> aggOrDlq = new HashSet<>(ledger.verified(ChaosAggregate.KIND));
        aggOrDlq.addAll(dlqIds);
        Set<Long> lostAggregate = missing(ledger.produced, aggOrDlq);
        String replay = "replay with -Dchaos.seed=" + seed;
        assertThat(ledger.produced).as("produced, " + replay).hasSize((int) records);
        assertThat(lostPlain).as("lost by the plain group, " + replay).isEmpty();
        assertThat(lostStreams).as("lost by the Streams app, " + replay).isEmpty();
        assertThat(lostAggregate).as("lost by the groupBy aggregation, " + replay).isEmpty();
        assertThat(sums.get(0)).as("groupBy aggregates, " + replay).hasSize(ChaosAggregate.GROUPS);
        assertThat(sumsEqual).as("groupBy aggregates equal to the reference's, " + replay).isTrue();
        assertThat(slotsCounted).as("slots in the aggregates, " + replay).isEqualTo(slotsExpected);
        assertThat(ledger.altered).as("altered, " + replay).isEmpty();
        assertThat(ledger.unexcusedFinalAnswers())
            .as("final answers (skip / dead-letter) while the claim was readable, " + replay)
            .isEmpty();
        assertThat(ledger.unreadableAfterRestore)
            .as("claims not readable again after their object was restored, " + replay)
            .isEmpty();
        assertThat(ledger.dropped).as("members dropped from their group, " + replay).isEmpty();
        assertThat(admitted).as("reader permits still admitted, " + replay).isZero();
        assertThat(idle(stats)).as("reader idle at the end " + stats + ", " + replay).isTrue();
        assertThat(ledger.maxCacheBytes.get())
            .as("cache bytes, " + replay)
            .isLessThanOrEqualTo(cache.maxBytes());
        assertThat(ChaosStores.contains(ChaosValue.of(seed, 1), ChaosValue.MARKER))
            .as("the scan finds the marker in a value's plaintext")
            .isTrue();
        assertThat(scan[0]).as("stored objects scanned, " + replay).isPositive();
        assertThat(scan[2]).as("stored objects showing the plaintext marker, " + replay).isZero();
        assertThat(ledger.refs).as("refs redeemed, " + replay).containsOnlyKeys("encrypted");
        assertThat(kms.callCount("GenerateDataKey")).as("data keys generated").isPositive();
        assertThat(ledger.faults.keySet().stream().filter(k -> k.startsWith("kms-")))
            .as("KMS faults injected, " + replay)
            .isNotEmpty();
        List<String> everyKind = new ArrayList<>();
        ChaosFaults.KINDS.forEach(k -> everyKind.add(k.name()));
        kms.kinds().forEach(k -> everyKind.add(k.name()));
        assertThat(ledger.faults.keySet())
            .as("every fault kind injected at least once, " + replay)
            .containsAll(everyKind);
      }
    } finally {
      stop.set(true);
      if (streams != null) {
        streams.close(Duration.ofSeconds(10));
      }
      threads.shutdownNow();
      ChaosLedger.current = null;
    }
  }

  /** One line of the drain's progress: what each consumer still misses, the stores' state. */
  private static String progress(
      ChaosLedger l, Map<Integer, StoreStats> stats, ChaosStores stores, ChaosKms kms) {
    Set<Long> outOrDlq = new HashSet<>(l.verified("streams-out"));
    outOrDlq.addAll(l.deadLettered.keySet());
    Set<Long> aggOrDlq = new HashSet<>(l.verified(ChaosAggregate.KIND));
    aggOrDlq.addAll(l.deadLettered.keySet());
    StringBuilder b =
        new StringBuilder(
            String.format(
                "%7.1fs missing: plain %d, streams-out %d, agg %d; reader %s; in flight",
                l.seconds(System.nanoTime()),
                missing(l.produced, l.verified("plain")).size(),
                missing(l.produced, outOrDlq).size(),
                missing(l.produced, aggOrDlq).size(),
                stats));
    stores.stores.forEach(
        s -> b.append(' ').append(s.name()).append(' ').append(s.proxy().inFlight()));
    return b.append("; KMS ").append(kms.calls()).toString();
  }

  private static boolean complete(ChaosLedger ledger) {
    Set<Long> outOrDlq = new HashSet<>(ledger.verified("streams-out"));
    outOrDlq.addAll(ledger.deadLettered.keySet());
    Set<Long> aggOrDlq = new HashSet<>(ledger.verified(ChaosAggregate.KIND));
    aggOrDlq.addAll(ledger.deadLettered.keySet());
    return ledger.verified("plain").containsAll(ledger.produced)
        && outOrDlq.containsAll(ledger.produced)
        && aggOrDlq.containsAll(ledger.produced);
  }

  private static boolean idle(Map<Integer, StoreStats> stats) {
    return !stats.isEmpty()
        && stats.values().stream().allMatch(s -> s.inflight() == 0 && s.queued() == 0);
  }

  private static Set<Long> missing(Set<Long> all, Set<Long> seen) {
    Set<Long> out = new TreeSet<>(all);
    out.removeAll(seen);
    return out;
  }

  private static Map<String, Object> claimCheck(ChaosStores stores, ChaosKms kms) {
    Map<String, Object> m = new HashMap<>(stores.config());
    m.putAll(kms.config());
    m.put("claimcheck.tenant", "chaos");
    m.put("claimcheck.placement", "hash"); // packs (and so faults) land on both stores
    m.put("claimcheck.threshold.bytes", "1024");
    m.put("claimcheck.store.op.deadline.ms", "2000");
    m.put("claimcheck.store.cooldown.ms", "3000");
    m.put("claimcheck.max.concurrent.reads", "64"); // a counting gate: its permits must come back
    m.put("claimcheck.cache.max.bytes", Long.toString(CACHE_MAX_BYTES));
    return m;
  }

  private static Map<String, Object> producer(EmbeddedKafka kafka, Map<String, Object> cc) {
    Map<String, Object> m = new HashMap<>(cc);
    m.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    m.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    m.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class.getName());
    m.put(ProducerConfig.ACKS_CONFIG, "all");
    m.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    m.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    m.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    m.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    return m;
  }

  private static Map<String, Object> consumer(
      EmbeddedKafka kafka, Map<String, Object> cc, String group) {
    Map<String, Object> m = new HashMap<>(cc);
    m.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    m.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    m.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    m.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        ChaosRecorders.Deserializer.class.getName());
    m.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    m.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    m.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) MAX_POLL_INTERVAL_MS);
    m.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 20);
    m.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
    m.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
    m.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ClaimCheckConsumerInterceptor.class.getName());
    return m;
  }

  private KafkaStreams streams(EmbeddedKafka kafka, Map<String, Object> cc, ChaosLedger ledger) {
    Properties p = new Properties();
    p.putAll(cc);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "chaos-streams");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        ChaosRecorders.DeadLetterHandler.class.getName());
    p.put(ClaimCheckDeserializationExceptionHandler.DLQ_TOPIC, DLQ);
    p.put(
        StreamsConfig.mainConsumerPrefix("interceptor.classes"),
        ClaimCheckConsumerInterceptor.class.getName());
    p.put(
        StreamsConfig.mainConsumerPrefix(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG),
        (int) MAX_POLL_INTERVAL_MS);
    p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 20);
    // A replaced thread's member must expire before its replacement gets the partitions back.
    p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6_000);
    p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, byte[]> in =
        builder.<String, byte[]>stream(IN)
            .peek((k, v) -> ledger.consumed("streams", Long.parseLong(k), v));
    in.to(OUT);
    ChaosAggregate.build(in, ledger);
    KafkaStreams s = new KafkaStreams(builder.build(p), p);
    s.setUncaughtExceptionHandler(
        e -> {
          ClaimCheckException claim = ClaimCheckDeserializationExceptionHandler.claimFailure(e);
          ChaosLedger.count(
              ledger.streamsThreadFailures,
              claim != null
                  ? "claim " + claim.reason() + ChaosRecorders.kmsTag(claim)
                  : rootCause(e).getClass().getSimpleName());
          return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    return s;
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  /** The record ids in the dead-letter topic (committed transactions only). */
  private static Set<Long> deadLetterIds(EmbeddedKafka kafka) {
    Map<String, Object> m = new HashMap<>();
    m.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    m.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Set<Long> ids = new TreeSet<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(m, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      var tp = new org.apache.kafka.common.TopicPartition(DLQ, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (c.position(tp) < end && System.nanoTime() < until) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          ids.add(ChaosRecorders.idOf(r.key()));
        }
      }
    }
    return ids;
  }

  private static String report(
      ChaosLedger l,
      long records,
      double chaosSeconds,
      double drainSeconds,
      int admitted,
      Map<Integer, StoreStats> stats,
      long cacheMax,
      Set<Long> dlqIds,
      String aggregate,
      String encryption) {
    StringBuilder b = new StringBuilder();
    b.append("\n==================== CHAOS REPORT ====================\n");
    b.append(String.format("seed                 %d  (replay: -Dchaos.seed=%d)%n", l.seed, l.seed));
    b.append(encryption);
    b.append(String.format("chaos / drain        %.1f s / %.1f s%n", chaosSeconds, drainSeconds));
    b.append(String.format("records planned      %d%n", records));
    b.append(
        String.format(
            "records produced     %d (acknowledged), send retries %s%n",
            l.produced.size(), ChaosLedger.sums(l.sendRetries)));
    for (String kind : List.of("plain", "streams", "streams-out", ChaosAggregate.KIND, "replay")) {
      b.append(
          String.format(
              "%-20s consumed %d, verified byte for byte %d distinct%s%n",
              kind,
              l.consumed.containsKey(kind) ? l.consumed.get(kind).sum() : 0,
              l.verified(kind).size(),
              kind.equals("replay")
                  ? " (corrupted records, read again)"
                  : ", lost " + missing(l.produced, l.verified(kind)).size()));
    }
    b.append(String.format("groupBy aggregate    %s%n", aggregate));
    b.append(
        String.format(
            "altered              %d %s%n",
            l.altered.size(), l.altered.stream().limit(5).toList()));
    b.append(String.format("faults injected      %s%n", ChaosLedger.sums(l.faults)));
    b.append(String.format("claim failures seen  %s%n", ChaosLedger.sums(l.claimFailures)));
    b.append(
        String.format(
            "final answers        %d, excused (deliberate corruption) %d%n",
            l.finalAnswers.size(), l.finalAnswers.stream().filter(l::excused).count()));
    List<String> unexcused = l.unexcusedFinalAnswers();
    b.append(String.format("  NOT excused        %d%n", unexcused.size()));
    unexcused.stream().limit(20).forEach(s -> b.append("    ").append(s).append('\n'));
    b.append(
        String.format("dead-lettered        %d records in %s: %s%n", dlqIds.size(), DLQ, dlqIds));
    b.append(String.format("corruption windows   %d%n", l.corruptions.size()));
    for (ChaosLedger.Window w : l.corruptions) {
      b.append(
          String.format(
              "    pack %s on %s %.1fs..%.1fs%n",
              w.pack, w.store, l.seconds(w.start), w.end == 0 ? Double.NaN : l.seconds(w.end)));
    }
    b.append(
        String.format(
            "replays of corrupted  %s, not readable after restore %s%n",
            ChaosLedger.sums(l.replays), l.unreadableAfterRestore));
    b.append(String.format("streams thread fails %s%n", ChaosLedger.sums(l.streamsThreadFailures)));
    b.append(String.format("group membership     %s%n", ChaosLedger.sums(l.membership)));
    b.append(
        String.format(
            "max gap between polls %d ms (max.poll.interval.ms %d)%n",
            l.maxPollGapNanos.get() / 1_000_000, MAX_POLL_INTERVAL_MS));
    b.append(String.format("members dropped      %d %s%n", l.dropped.size(), l.dropped));
    b.append(String.format("reader               admitted %d, stats %s%n", admitted, stats));
    b.append(
        String.format(
            "cache                max %d bytes of bound %d%n", l.maxCacheBytes.get(), cacheMax));
    b.append("drain:\n");
    l.drainLog.forEach(s -> b.append("  ").append(s).append('\n'));
    b.append("fault log:\n");
    l.faultLog.forEach(s -> b.append("  ").append(s).append('\n'));
    b.append("======================================================\n");
    return b.toString();
  }

  private static long longProperty(String name, long otherwise) {
    String v = System.getProperty(name);
    return v == null || v.isBlank() || v.startsWith("${") ? otherwise : Long.parseLong(v.trim());
  }

  private static double doubleProperty(String name, double otherwise) {
    String v = System.getProperty(name);
    return v == null || v.isBlank() || v.startsWith("${")
        ? otherwise
        : Double.parseDouble(v.trim());
  }

  /**
   * The cache's weight, read again a moment later when over the bound: the bound holds once the
   * puts under way return (each adds its claim, then evicts), so a reading taken in the middle of a
   * put may be over by that claim; an overshoot still there 20 ms later is a real breach.
   */
  private static long settledCacheBytes(ClaimCache<?> cache) {
    long w = cache.weightedSize();
    if (w <= cache.maxBytes()) {
      return w;
    }
    sleepQuietly(20);
    return Math.min(w, cache.weightedSize());
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
