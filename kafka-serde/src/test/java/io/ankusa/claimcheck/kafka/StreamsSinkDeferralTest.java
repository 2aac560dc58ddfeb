package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.internal.PendingCheckIns;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The topic filter of the pipelined Streams path: on a thread whose producer takes pending values,
 * the serde leaves a sink topic's large value in full and marked pending (no PUT on the stream
 * thread), while changelog, repartition and foreign-key join topics are checked in as before.
 */
class StreamsSinkDeferralTest {

  private static final int THRESHOLD = 100;
  private static final String APP = "orders-app";

  private final String store = "deferral-" + UUID.randomUUID();
  private final AtomicBoolean producerOpen = new AtomicBoolean(true);
  private ClaimCheckSerializer<byte[]> serializer;

  @AfterEach
  void close() {
    PendingCheckIns.bind(() -> false);
    if (serializer != null) {
      serializer.close();
    }
    MemoryStores.forget(store);
  }

  private ClaimCheckSerializer<byte[]> serializer(boolean pipelined) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + store);
    m.put("claimcheck.threshold.bytes", THRESHOLD);
    m.put("claimcheck.streams.pipelined", pipelined);
    m.put("application.id", APP); // as Streams configures its default serdes
    serializer = new ClaimCheckSerializer<>();
    serializer.configure(m, false);
    return serializer;
  }

  private long puts() {
    return MemoryStores.named(store).count(MemoryStore.Op.PUT);
  }

  @ParameterizedTest
  @CsvSource({
    "orders-app-KSTREAM-REDUCE-STATE-STORE-0000000003-changelog",
    "orders-app-KSTREAM-REDUCE-STATE-STORE-0000000003-repartition",
    "orders-app-totals-repartition",
    "orders-app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic",
    "orders-app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000010-topic",
  })
  void internalTopicsAreCheckedInOnTheStreamThread(String topic) {
    ClaimCheckSerializer<byte[]> s = serializer(true);
    PendingCheckIns.bind(producerOpen::get);
    RecordHeaders h = new RecordHeaders();
    byte[] out = s.serialize(topic, h, new byte[THRESHOLD]);
    assertThat(RefCodec.decode(out)).isNotNull();
    assertThat(h.lastHeader(PendingCheckIns.HEADER)).isNull();
    assertThat(h.lastHeader(ClaimCheckHeaders.VALUE_MARKER)).isNotNull();
    assertThat(puts()).isEqualTo(1);
  }

  @ParameterizedTest
  @CsvSource({"orders-enriched", "orders-topic", "other-app-x-changelog", "orders-app-out"})
  void sinkTopicValuesAreLeftPendingForTheProducer(String topic) {
    ClaimCheckSerializer<byte[]> s = serializer(true);
    PendingCheckIns.bind(producerOpen::get);
    RecordHeaders h = new RecordHeaders();
    ClaimCheckHeaders.mark(h, false); // stale, from an earlier field
    byte[] value = new byte[THRESHOLD + 5];
    value[0] = 42;
    byte[] out = s.serialize(topic, h, value);
    assertThat(out).isEqualTo(value);
    assertThat(PendingCheckIns.take(h, out)).isTrue();
    assertThat(h.lastHeader(ClaimCheckHeaders.VALUE_MARKER)).isNull();
    assertThat(puts()).isZero();
  }

  @Test
  void withoutABoundProducerOrWithTheKeyOffTheValueIsCheckedInAsBefore() throws Exception {
    ClaimCheckSerializer<byte[]> s = serializer(true);
    // another thread: no producer of ours bound there
    RecordHeaders h1 = new RecordHeaders();
    byte[] out1 =
        CompletableFuture.supplyAsync(() -> s.serialize("sink", h1, new byte[THRESHOLD])).get();
    assertThat(h1.lastHeader(PendingCheckIns.HEADER)).isNull();
    assertThat(RefCodec.decode(out1)).isNotNull();
    // bound, but that producer closed
    PendingCheckIns.bind(producerOpen::get);
    producerOpen.set(false);
    RecordHeaders h2 = new RecordHeaders();
    s.serialize("sink", h2, new byte[THRESHOLD]);
    assertThat(h2.lastHeader(PendingCheckIns.HEADER)).isNull();
    // header-less serialization (a store, a wrapper): nothing to mark
    producerOpen.set(true);
    assertThat(RefCodec.decode(s.serialize("sink", new byte[THRESHOLD]))).isNotNull();
    s.close();
    // the key off
    ClaimCheckSerializer<byte[]> off = serializer(false);
    RecordHeaders h3 = new RecordHeaders();
    off.serialize("sink", h3, new byte[THRESHOLD]);
    assertThat(h3.lastHeader(PendingCheckIns.HEADER)).isNull();
    assertThat(puts()).isEqualTo(4);
  }
}
