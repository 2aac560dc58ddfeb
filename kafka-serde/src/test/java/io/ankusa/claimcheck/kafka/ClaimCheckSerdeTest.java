package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The serializer, deserializer and serde against in-memory stores. */
class ClaimCheckSerdeTest {

  private static final int THRESHOLD = 100;
  private static final String TOPIC = "t";

  private final String store = "serde-" + UUID.randomUUID();
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
    MemoryStores.forget(store);
  }

  private Map<String, Object> config() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + store);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.threshold.bytes", THRESHOLD);
    return m;
  }

  private MemoryStore memory() {
    return MemoryStores.named(store);
  }

  private <T extends AutoCloseable> T track(T c) {
    opened.add(c);
    return c;
  }

  private ClaimCheckSerializer<byte[]> serializer(Map<String, Object> config, boolean isKey) {
    ClaimCheckSerializer<byte[]> s = track(new ClaimCheckSerializer<>());
    s.configure(config, isKey);
    return s;
  }

  private ClaimCheckDeserializer<byte[]> deserializer(Map<String, Object> config, boolean isKey) {
    ClaimCheckDeserializer<byte[]> d = track(new ClaimCheckDeserializer<>());
    d.configure(config, isKey);
    return d;
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private ClaimCheckException failure(ClaimCheckDeserializer<byte[]> d, Headers h, byte[] ref) {
    try {
      d.deserialize(TOPIC, h, ref);
    } catch (ClaimCheckException e) {
      return e;
    }
    throw new AssertionError("expected a ClaimCheckException");
  }

  @ParameterizedTest
  @CsvSource({"99, false", "100, true", "101, true"})
  void thresholdEdges(int size, boolean claimed) {
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    ClaimCheckDeserializer<byte[]> d = deserializer(config(), false);
    byte[] value = random(size, size);
    Headers h = new RecordHeaders();
    byte[] out = s.serialize(TOPIC, h, value);
    if (claimed) {
      assertThat(RefCodec.isRef(out)).isTrue();
      assertThat(out.length).isLessThan(100);
      assertThat(ClaimCheckHeaders.isMarked(h, false)).isTrue();
      assertThat(memory().count(MemoryStore.Op.PUT)).isEqualTo(1);
    } else {
      assertThat(out).isSameAs(value); // no copy, no prefix
      assertThat(ClaimCheckHeaders.isMarked(h, false)).isFalse();
      assertThat(memory().count(MemoryStore.Op.PUT)).isZero();
    }
    assertThat(d.deserialize(TOPIC, h, out)).isEqualTo(value);
    assertThat(d.deserialize(TOPIC, h, ByteBuffer.wrap(out))).isEqualTo(value);
    assertThat(s.metrics().claimedCount()).isEqualTo(claimed ? 1 : 0);
    assertThat(s.metrics().inlineCount()).isEqualTo(claimed ? 0 : 1);
    assertThat(d.metrics().claimedCount()).isEqualTo(claimed ? 2 : 0);
  }

  @ParameterizedTest
  @CsvSource({"none, 1", "zstd, 2"})
  void theMarkerCarriesTheVersionOfTheRef(String codec, int version) {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", codec);
    ClaimCheckSerializer<byte[]> s = serializer(m, false);
    Headers h = new RecordHeaders();
    byte[] value = new byte[5000];
    byte[] out = s.serialize(TOPIC, h, value);
    assertThat(RefCodec.decode(out).version()).isEqualTo(version);
    assertThat(h.lastHeader(ClaimCheckHeaders.VALUE_MARKER).value())
        .containsExactly((byte) ('0' + version));
    assertThat(deserializer(config(), false).deserialize(TOPIC, h, out)).isEqualTo(value);
  }

  @Test
  void inlinePassRemovesAStaleMarker() {
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    Headers h = new RecordHeaders();
    s.serialize(TOPIC, h, random(500, 1));
    assertThat(ClaimCheckHeaders.isMarked(h, false)).isTrue();
    h.add("other", new byte[] {1});
    byte[] small = random(10, 2);
    assertThat(s.serialize(TOPIC, h, small)).isSameAs(small);
    assertThat(ClaimCheckHeaders.isMarked(h, false)).isFalse();
    assertThat(h.lastHeader("other")).isNotNull();
  }

  @Test
  void tombstonesStayNull() {
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    ClaimCheckDeserializer<byte[]> d = deserializer(config(), false);
    Headers h = new RecordHeaders();
    assertThat(s.serialize(TOPIC, h, null)).isNull();
    assertThat(d.deserialize(TOPIC, h, (byte[]) null)).isNull();
  }

  @Test
  void withoutHeadersTheRefIsFoundByMagicAndCrc() {
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    ClaimCheckDeserializer<byte[]> d = deserializer(config(), false);
    byte[] value = random(1000, 3);
    byte[] ref = s.serialize(TOPIC, value);
    assertThat(RefCodec.isRef(ref)).isTrue();
    assertThat(d.deserialize(TOPIC, ref)).isEqualTo(value);
    byte[] small = random(10, 4);
    assertThat(d.deserialize(TOPIC, s.serialize(TOPIC, small))).isSameAs(small);
  }

  @Test
  void anIntactRefFrameIsRedeemedWithOtherHeadersAndNoMarker() {
    // Decision 5: the marker OR an intact frame (magic, exact length, CRC32), whatever headers
    // there are: a mirror or tool that dropped the marker must not turn a ref into the payload.
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    ClaimCheckDeserializer<byte[]> d = deserializer(config(), false);
    byte[] value = random(1000, 5);
    byte[] ref = s.serialize(TOPIC, value);
    Headers other = new RecordHeaders().add("trace-id", new byte[] {1});
    assertThat(d.deserialize(TOPIC, other, ref)).isEqualTo(value);
    assertThat(d.deserialize(TOPIC, new RecordHeaders(), ByteBuffer.wrap(ref))).isEqualTo(value);
    byte[] damaged = ref.clone();
    damaged[damaged.length - 1] ^= 1; // no longer an intact frame, and unmarked: inline
    assertThat(d.deserialize(TOPIC, other, damaged)).isSameAs(damaged);
  }

  @Test
  void keysStayInlineUnlessEnabled() {
    ClaimCheckSerializer<byte[]> off = serializer(config(), true);
    byte[] key = random(500, 6);
    Headers h = new RecordHeaders();
    assertThat(off.serialize(TOPIC, h, key)).isSameAs(key);
    assertThat(ClaimCheckHeaders.isMarked(h, true)).isFalse();
    assertThat(memory().count(MemoryStore.Op.PUT)).isZero();

    Map<String, Object> m = config();
    m.put("claimcheck.keys.enabled", "true");
    ClaimCheckSerializer<byte[]> on = serializer(m, true);
    byte[] first = on.serialize(TOPIC, h, key);
    assertThat(ClaimCheckHeaders.isMarked(h, true)).isTrue();
    assertThat(ClaimCheckHeaders.isMarked(h, false)).isFalse();
    byte[] again = on.serialize(TOPIC, new RecordHeaders(), key.clone());
    assertThat(again).isEqualTo(first); // one key, one ref: partitioning and compaction hold
    assertThat(memory().keys()).hasSize(1);
    assertThat(deserializer(config(), true).deserialize(TOPIC, h, first)).isEqualTo(key);
    assertThat(on.serialize(TOPIC, new RecordHeaders(), random(500, 7))).isNotEqualTo(first);
  }

  @Test
  void innerSerdeFromConfig() {
    Map<String, Object> m = config();
    m.put("claimcheck.value.serde", Serdes.StringSerde.class.getName());
    ClaimCheckSerde<String> serde = track(new ClaimCheckSerde<>());
    serde.configure(m, false);
    String big = "x".repeat(1000);
    Headers h = new RecordHeaders();
    byte[] out = serde.serializer().serialize(TOPIC, h, big);
    assertThat(RefCodec.isRef(out)).isTrue();
    assertThat(serde.deserializer().deserialize(TOPIC, h, out)).isEqualTo(big);
    assertThat(
            serde
                .deserializer()
                .deserialize(TOPIC, new RecordHeaders(), "small".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("small");
  }

  @Test
  void innerSerdeGivenAsAnInstance() {
    ClaimCheckSerde<String> serde = track(new ClaimCheckSerde<>(Serdes.String()));
    serde.configure(config(), false);
    Headers h = new RecordHeaders();
    String big = "y".repeat(300);
    assertThat(
            serde.deserializer().deserialize(TOPIC, h, serde.serializer().serialize(TOPIC, h, big)))
        .isEqualTo(big);
  }

  @Test
  void refusedTenant() {
    byte[] ref = serializer(config(), false).serialize(TOPIC, random(1000, 8));
    Map<String, Object> m = config();
    m.put("claimcheck.tenants.allowed", "other");
    ClaimCheckDeserializer<byte[]> d = deserializer(m, false);
    ClaimCheckException e = failure(d, null, ref);
    assertThat(e.reason()).isEqualTo(Reason.REFUSED);
    assertThat(e.getMessage()).contains("acme");
    assertThat(memory().count(MemoryStore.Op.GET)).isZero();
    assertThat(d.metrics().failedCount(Reason.REFUSED)).isEqualTo(1);
  }

  @Test
  void aMarkedValueWithABadCrcIsRefused() {
    Headers h = new RecordHeaders();
    byte[] ref = serializer(config(), false).serialize(TOPIC, h, random(1000, 9));
    ref[ref.length - 1] ^= 1;
    ClaimCheckException e = failure(deserializer(config(), false), h, ref);
    assertThat(e.reason()).isEqualTo(Reason.REFUSED);
    assertThat(e.getMessage()).contains("BAD_CRC");
  }

  /** The bytes decide (issue 15): a marker never makes a value without the ref magic a ref. */
  @Test
  void aMarkedValueWithoutTheRefMagicIsInline() {
    Headers h = new RecordHeaders();
    ClaimCheckHeaders.mark(h, false);
    byte[] plain = "plain".getBytes(StandardCharsets.UTF_8);
    ClaimCheckDeserializer<byte[]> d = deserializer(config(), false);
    assertThat(d.deserialize(TOPIC, h, plain)).isSameAs(plain);
    assertThat(d.deserialize(TOPIC, h, ByteBuffer.wrap(plain))).isEqualTo(plain);
    assertThat(d.metrics().failedCount(Reason.REFUSED)).isZero();
  }

  /**
   * A foreign-key join hashes the left value serialized for its "-vh" pseudo topic on both sides
   * and drops a response whose hash differs: a check-in there made every hash differ (issue 15).
   */
  @Test
  void aForeignKeyJoinsValueHashPseudoTopicIsNeverCheckedIn() {
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    byte[] large = random(1000, 12);
    Headers h = new RecordHeaders();
    ClaimCheckHeaders.mark(h, false); // the record's own marker: left alone
    for (String pseudo :
        List.of(
            "app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic-vh",
            "app-my-join-subscription-registration-topic-vh")) {
      assertThat(s.serialize(pseudo, h, large)).isSameAs(large);
      assertThat(s.serialize(pseudo, h, large.clone())).isEqualTo(large);
    }
    assertThat(ClaimCheckHeaders.isMarked(h, false)).isTrue();
    assertThat(memory().count(MemoryStore.Op.PUT)).isZero();
    assertThat(s.serialize("orders-vh", new RecordHeaders(), large)).isNotEqualTo(large);
    assertThat(s.serialize("registration-topic-vh", new RecordHeaders(), large))
        .isNotEqualTo(large);
    assertThat(memory().count(MemoryStore.Op.PUT)).isEqualTo(2);
  }

  /** A value that starts with the magic is checked in whatever its size: never mistaken. */
  @Test
  void aSmallValueThatStartsWithTheRefMagicIsCheckedIn() {
    byte[] looksLikeARef =
        RefCodec.encode(
            ClaimRef.of(
                io.ankusa.claimcheck.ref.Tenant.of("x"),
                new io.ankusa.claimcheck.ref.ClaimId(
                    io.ankusa.claimcheck.ref.PackId.parseHex("00000000000000ff"), 0),
                29,
                10,
                0x1234,
                io.ankusa.claimcheck.ref.Codec.NONE));
    Headers h = new RecordHeaders();
    byte[] written = serializer(config(), false).serialize(TOPIC, h, looksLikeARef);
    assertThat(written).isNotEqualTo(looksLikeARef);
    assertThat(ClaimCheckHeaders.isMarked(h, false)).isTrue();
    assertThat(deserializer(config(), false).deserialize(TOPIC, h, written))
        .isEqualTo(looksLikeARef);
    assertThat(deserializer(config(), false).deserialize(TOPIC, new RecordHeaders(), written))
        .isEqualTo(looksLikeARef);
  }

  @Test
  void deletedClaimIsNotFound() {
    byte[] ref = serializer(config(), false).serialize(TOPIC, random(1000, 10));
    memory().clearObjects();
    assertThat(failure(deserializer(config(), false), null, ref).reason())
        .isEqualTo(Reason.NOT_FOUND);
  }

  @Test
  void failingStoreIsUnavailable() {
    byte[] ref = serializer(config(), false).serialize(TOPIC, random(1000, 11));
    memory().failAlways(MemoryStore.Op.GET, Kind.UNAVAILABLE);
    Map<String, Object> m = config();
    m.put("claimcheck.read.deadline.ms", 300); // retried until the deadline: keep it short
    ClaimCheckException e = failure(deserializer(m, false), null, ref);
    assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
    assertThat(e.isRetriable()).isTrue();
  }

  @Test
  void pastTheRequestGateARedeemIsShedAsUnavailable() throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.max.concurrent.reads", 1);
    byte[] ref = serializer(m, false).serialize(TOPIC, random(1000, 12));
    ClaimCheckDeserializer<byte[]> d = deserializer(m, false);
    io.ankusa.claimcheck.ClaimCheck holder = track(io.ankusa.claimcheck.ClaimCheck.open(m));
    java.util.concurrent.CountDownLatch admitted = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    Thread other =
        new Thread(
            () -> {
              ReaderAccess.of(holder)
                  .admit(); // a redeem in progress on another thread holds the one permit
              admitted.countDown();
              try {
                done.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              ReaderAccess.of(holder).release();
            });
    other.start();
    admitted.await();
    try {
      ClaimCheckException e = failure(d, null, ref);
      assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
      assertThat(e.getMessage()).contains("claimcheck.max.concurrent.reads");
      assertThat(memory().count(MemoryStore.Op.GET)).isZero();
    } finally {
      done.countDown();
      other.join();
    }
    assertThat(d.deserialize(TOPIC, null, ref)).isEqualTo(random(1000, 12));
    assertThat(ReaderAccess.of(holder).admitted()).isZero();
  }

  @Test
  void corruptedStoredBytesAreCorrupt() {
    byte[] value = random(1000, 12);
    byte[] refBytes = serializer(config(), false).serialize(TOPIC, value);
    ClaimRef ref = RefCodec.decode(refBytes);
    String key = KeyLayout.FLAT.key("acme", ref.packId().value());
    byte[] pack = memory().object(key);
    pack[(int) ref.offset() + 7] ^= 0x40;
    memory().clearObjects();
    memory().putIfAbsent(key, pack, Duration.ofSeconds(1)).join();
    assertThat(failure(deserializer(config(), false), null, refBytes).reason())
        .isEqualTo(Reason.CORRUPT);
  }

  @Test
  void failedCheckInIsUnavailable() {
    Map<String, Object> m = config();
    m.put("claimcheck.store.op.deadline.ms", 300); // retried until the write deadline
    ClaimCheckSerializer<byte[]> s = serializer(m, false);
    memory().failAlways(MemoryStore.Op.PUT, Kind.UNAVAILABLE);
    assertThatThrownBy(() -> s.serialize(TOPIC, new RecordHeaders(), random(1000, 13)))
        .isInstanceOfSatisfying(
            ClaimCheckException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
              assertThat(e.getMessage()).contains("acme").contains("store 0");
            });
    assertThat(s.metrics().failedCount(Reason.UNAVAILABLE)).isEqualTo(1);
    byte[] small = random(5, 14);
    assertThat(s.serialize(TOPIC, new RecordHeaders(), small))
        .isSameAs(small); // inline still works
  }

  @ParameterizedTest
  @CsvSource({
    "claimcheck.threshold.bytes, -1",
    "claimcheck.poll.budget.ratio, 2",
    "claimcheck.value.serde, java.lang.String",
    "claimcheck.value.serde, no.such.SerdeClass",
    "claimcheck.key.serde, java.lang.Object",
    "claimcheck.streams.final.failure, maybe",
    "max.poll.interval.ms, soon",
    "claimcheck.stores, ftp://nope",
    "claimcheck.treshold.bytes, 1000",
  })
  void badConfigNamesTheKey(String key, String value) {
    Map<String, Object> m = config();
    m.put(key, value);
    assertThatThrownBy(() -> new ClaimCheckSerializer<byte[]>().configure(m, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
    assertThatThrownBy(() -> new ClaimCheckDeserializer<byte[]>().configure(m, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void missingStoresNamesTheKey() {
    assertThatThrownBy(() -> new ClaimCheckSerde<byte[]>().configure(Map.of(), false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.stores");
  }

  @Test
  void closeIsIdempotentAndReleasesOnlyItsOwnHandle() {
    try (ClaimCheck other = ClaimCheck.open(config())) {
      ClaimCheckSerde<byte[]> serde = new ClaimCheckSerde<>();
      serde.configure(config(), false);
      assertThat(serde.deserializer()).isInstanceOf(ClaimCheckDeserializer.class);
      serde.close();
      serde.close();
      assertThatThrownBy(() -> serde.serializer().serialize(TOPIC, new byte[1]))
          .isInstanceOf(IllegalStateException.class);
      // The shared reader still serves the other handle: close released one reference only.
      ClaimRef ref = other.checkIn(random(200, 15));
      assertThat(other.redeem(ref, other.ticker().read() + Duration.ofSeconds(5).toNanos()).join())
          .isEqualTo(random(200, 15));
    }
  }

  @Test
  void aClosedSerdeStaysClosedEvenIfConfiguredAgain() {
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    ClaimCheckDeserializer<byte[]> d = deserializer(config(), false);
    s.close();
    d.close();
    assertThatThrownBy(() -> s.serialize(TOPIC, new byte[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> d.deserialize(TOPIC, new byte[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    s.configure(config(), false);
    d.configure(config(), false);
    assertThatThrownBy(() -> s.serialize(TOPIC, new RecordHeaders(), new byte[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(
            () -> d.deserialize(TOPIC, new RecordHeaders(), ByteBuffer.wrap(new byte[1])))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void usingAnUnconfiguredDeserializerIsAClearError() {
    assertThatThrownBy(() -> new ClaimCheckDeserializer<byte[]>().deserialize(TOPIC, new byte[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("configure");
  }

  @Test
  void everyInlineRecordIsCountedWhateverTheOverloadAndThread() throws InterruptedException {
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    ClaimCheckDeserializer<byte[]> d = deserializer(config(), false);
    byte[] small = random(50, 16);
    Runnable oneOfEach =
        () -> {
          assertThat(s.serialize(TOPIC, small)).isSameAs(small);
          assertThat(s.serialize(TOPIC, new RecordHeaders(), small)).isSameAs(small);
          assertThat(d.deserialize(TOPIC, small)).isSameAs(small);
          assertThat(d.deserialize(TOPIC, new RecordHeaders(), small)).isSameAs(small);
          assertThat(d.deserialize(TOPIC, new RecordHeaders(), ByteBuffer.wrap(small)))
              .isEqualTo(small);
        };
    oneOfEach.run(); // this thread
    Thread other = new Thread(oneOfEach); // a serde shared by two stream threads
    other.start();
    other.join();
    assertThat(s.metrics().inlineCount()).isEqualTo(4);
    assertThat(d.metrics().inlineCount()).isEqualTo(6);
    assertThat(d.metrics().claimedCount()).isZero();
  }

  @Test
  void inlinePassLeavesReadOnlyHeadersWithoutAMarkerAlone() {
    // A resent ProducerRecord: the producer made its headers read-only on the first send.
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    RecordHeaders h = new RecordHeaders();
    h.add("trace-id", new byte[] {1});
    h.setReadOnly();
    byte[] small = random(10, 17);
    assertThat(s.serialize(TOPIC, h, small)).isSameAs(small);
    assertThat(h.lastHeader("trace-id")).isNotNull();
  }

  @Test
  void usingAnUnconfiguredSerializerIsAClearError() {
    assertThatThrownBy(() -> new ClaimCheckSerializer<byte[]>().serialize(TOPIC, new byte[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("configure");
  }

  @Test
  void pollBudgetSpentFailsTheNextRedeemAtOnceWithoutAStoreRequest() {
    DrivenTicker ticker = new DrivenTicker();
    // The inner deserializer takes 300 ms of driven time per record; the budget is 500 ms.
    ByteArrayDeserializer slow =
        new ByteArrayDeserializer() {
          @Override
          public byte[] deserialize(String topic, byte[] data) {
            ticker.advance(Duration.ofMillis(300));
            return data;
          }
        };
    ClaimCheckDeserializer<byte[]> d = track(new ClaimCheckDeserializer<>(slow, ticker));
    Map<String, Object> m = config();
    m.put("max.poll.interval.ms", 1000);
    d.configure(m, false);
    ClaimCheckSerializer<byte[]> s = serializer(config(), false);
    List<byte[]> values = List.of(random(200, 20), random(200, 21), random(200, 22));
    List<byte[]> refs = values.stream().map(v -> s.serialize(TOPIC, v)).toList();
    assertThat(d.deserialize(TOPIC, refs.get(0))).isEqualTo(values.get(0)); // t0 .. t0+300
    assertThat(d.deserialize(TOPIC, refs.get(1))).isEqualTo(values.get(1)); // .. t0+600
    long gets = memory().count(MemoryStore.Op.GET);
    ClaimCheckException e = failure(d, null, refs.get(2)); // budget ended at t0+500
    assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
    assertThat(memory().count(MemoryStore.Op.GET)).isEqualTo(gets);
    // Straight after the failure (the same poll going on): still the spent window.
    assertThat(failure(d, null, refs.get(2)).reason()).isEqualTo(Reason.UNAVAILABLE);
    assertThat(memory().count(MemoryStore.Op.GET)).isEqualTo(gets);
    // The application's retry, after a pause, is a new poll with a fresh budget.
    ticker.advance(Duration.ofMillis(51));
    assertThat(d.deserialize(TOPIC, refs.get(2))).isEqualTo(values.get(2));
  }

  @Test
  void pluginMetricsShowTheCounts() throws Exception {
    try (Metrics metrics = new Metrics();
        PluginMetricsImpl plugin =
            new PluginMetricsImpl(metrics, Map.of("config", "value.serializer"))) {
      ClaimCheckSerializer.Monitored<byte[]> s = track(new ClaimCheckSerializer.Monitored<>());
      s.configure(config(), false);
      s.withPluginMetrics(plugin);
      s.serialize(TOPIC, random(10, 30));
      s.serialize(TOPIC, random(10, 31));
      s.serialize(TOPIC, random(1000, 32));
      assertThat(value(metrics, "claimcheck-inline-total", Map.of())).isEqualTo(2.0);
      assertThat(value(metrics, "claimcheck-claimed-total", Map.of())).isEqualTo(1.0);
      assertThat(value(metrics, "claimcheck-failed-total", Map.of("reason", "unavailable")))
          .isEqualTo(0.0);
    }
  }

  @Test
  void theDefaultClassesAreNotMonitorableSoTheyLoadOnClientsWithoutIt() {
    // Kafka 4.1 added Monitorable: a class implementing it cannot load on older clients.
    assertThat(Serializer.class.isAssignableFrom(ClaimCheckSerializer.class)).isTrue();
    for (Class<?> c :
        List.of(ClaimCheckSerializer.class, ClaimCheckDeserializer.class, ClaimCheckSerde.class)) {
      assertThat(c.getInterfaces())
          .extracting(Class::getName)
          .doesNotContain("org.apache.kafka.common.metrics.Monitorable");
    }
    assertThat(org.apache.kafka.common.metrics.Monitorable.class)
        .isAssignableFrom(ClaimCheckSerializer.Monitored.class)
        .isAssignableFrom(ClaimCheckDeserializer.Monitored.class);
  }

  private static double value(Metrics metrics, String name, Map<String, String> extraTags) {
    return metrics.metrics().entrySet().stream()
        .filter(
            e ->
                e.getKey().name().equals(name)
                    && e.getKey().tags().entrySet().containsAll(extraTags.entrySet()))
        .map(e -> (Double) e.getValue().metricValue())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name + " " + extraTags));
  }
}
