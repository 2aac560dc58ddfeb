package io.ankusa.claimcheck.kafka.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.kafka.DrivenTicker;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The producer against a {@link MockProducer} and a real claim check over an in-memory store whose
 * check-ins wait for the test ({@link GatedClaimCheck}), so the test decides the order uploads
 * finish in; no sleeps: {@code flush()} is the point where everything decided has been handed on.
 */
@Timeout(30)
class ClaimCheckProducerTest {

  private static final int THRESHOLD = 100;
  private static final String TOPIC = "t";
  private static final Node NODE = new Node(0, "localhost", 9092);

  private final String store = "producer-" + UUID.randomUUID();
  private final DrivenTicker ticker = new DrivenTicker();
  private final List<AutoCloseable> opened = new ArrayList<>();
  private MockProducer<byte[], byte[]> mock;
  private GatedClaimCheck gated;

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      ((ClaimCheckProducer<?, ?>) c).close(Duration.ZERO); // gates a test left shut stay shut
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

  private ClaimCheckProducer<String, byte[]> producer(Map<String, Object> config) {
    return producer(config, true);
  }

  private ClaimCheckProducer<String, byte[]> producer(
      Map<String, Object> config, boolean autoComplete) {
    List<PartitionInfo> parts = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      parts.add(new PartitionInfo(TOPIC, p, NODE, new Node[] {NODE}, new Node[] {NODE}));
    }
    Cluster cluster = new Cluster("c", List.of(NODE), parts, Set.of(), Set.of());
    mock =
        new MockProducer<>(
            cluster, autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
    ClaimCheckProducer<String, byte[]> p =
        new ClaimCheckProducer<>(
            mock,
            config,
            new StringSerializer(),
            new ByteArraySerializer(),
            c -> gated = new GatedClaimCheck(c),
            ticker,
            () -> 1_000L);
    opened.add(p);
    return p;
  }

  private static byte[] big(int id) {
    byte[] b = new byte[THRESHOLD + id];
    b[0] = (byte) id;
    return b;
  }

  private static byte[] small(int id) {
    return new byte[] {(byte) id, 1, 2};
  }

  private static ProducerRecord<String, byte[]> to(int partition, byte[] value) {
    return new ProducerRecord<>(TOPIC, partition, null, value);
  }

  /** The ids (first byte of the original value) of what reached the mock, in order. */
  private List<Integer> handedOn() {
    List<Integer> ids = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : mock.history()) {
      byte[] v = r.value();
      if (r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null) {
        v = gated.redeem(RefCodec.decode(v), Long.MAX_VALUE / 2).join();
      }
      ids.add((int) v[0]);
    }
    return ids;
  }

  @Test
  void largeValuesBecomeMarkedRefsAsTheSerializerEmitsThemAndSmallOnesPassUntouched() {
    ClaimCheckProducer<String, byte[]> p = producer(config());
    byte[] small = small(7);
    ProducerRecord<String, byte[]> stale = to(0, small);
    stale.headers().add(ClaimCheckHeaders.VALUE_MARKER, new byte[] {'1'});
    p.send(stale);
    p.send(to(1, big(1)));
    gated.open(1);
    p.flush();

    ProducerRecord<byte[], byte[]> inline = mock.history().get(0);
    assertThat(inline.value()).isSameAs(small);
    assertThat(inline.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER)).isNull();
    assertThat(inline.timestamp()).isEqualTo(1_000L);

    ProducerRecord<byte[], byte[]> claimed = mock.history().get(1);
    assertThat(RefCodec.isRef(claimed.value())).isTrue();
    ClaimCheckSerializer<byte[]> serializer = new ClaimCheckSerializer<>();
    serializer.configure(config(), false);
    org.apache.kafka.common.header.internals.RecordHeaders h =
        new org.apache.kafka.common.header.internals.RecordHeaders();
    serializer.serialize(TOPIC, h, big(1));
    serializer.close();
    Header mine = claimed.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER);
    assertThat(mine.value()).isEqualTo(h.lastHeader(ClaimCheckHeaders.VALUE_MARKER).value());
    assertThat(gated.redeem(RefCodec.decode(claimed.value()), Long.MAX_VALUE / 2).join())
        .isEqualTo(big(1));
  }

  @Test
  void aPartitionsRecordsGoInSendOrderWhateverOrderTheirUploadsFinishIn() throws Exception {
    ClaimCheckProducer<String, byte[]> p = producer(config());
    p.send(to(0, big(1)));
    p.send(to(0, big(2)));
    p.send(to(0, small(3))); // behind 1 and 2: must wait
    p.send(to(0, big(4)));
    Future<RecordMetadata> other = p.send(to(1, big(5)));
    p.send(to(2, small(6))); // nothing pending in partition 2: goes at once
    assertThat(handedOn()).containsExactly(6);

    gated.open(4);
    gated.open(5);
    other.get();
    gated.open(2);
    assertThat(handedOn()).doesNotContain(1, 2, 3, 4);
    gated.open(1);
    p.flush();
    List<Integer> order = handedOn();
    assertThat(order).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6);
    assertThat(order.stream().filter(i -> i <= 4)).containsExactly(1, 2, 3, 4);
  }

  @Test
  void recordsOfOneKeyKeepTheirOrderAndOtherPartitionsDoNotWait() throws Exception {
    ClaimCheckProducer<String, byte[]> p = producer(config());
    String a = "alpha";
    int pa = Utils.toPositive(Utils.murmur2(a.getBytes())) % 3;
    String b = null;
    for (int i = 0; b == null; i++) {
      String k = "k" + i;
      if (Utils.toPositive(Utils.murmur2(k.getBytes())) % 3 != pa) {
        b = k;
      }
    }
    p.send(new ProducerRecord<>(TOPIC, a, big(1)));
    p.send(new ProducerRecord<>(TOPIC, a, small(2)));
    p.send(new ProducerRecord<>(TOPIC, b, small(3)));
    p.send(new ProducerRecord<>(TOPIC, null, small(4))); // no key, no partition: no order
    assertThat(handedOn()).containsExactly(3, 4);
    gated.open(1);
    p.flush();
    assertThat(handedOn()).containsExactly(3, 4, 1, 2);
  }

  @Test
  void recordsWithoutKeyOrPartitionGoWhenReady() {
    ClaimCheckProducer<String, byte[]> p = producer(config());
    p.send(new ProducerRecord<>(TOPIC, big(1)));
    p.send(new ProducerRecord<>(TOPIC, big(2)));
    gated.open(2);
    p.send(new ProducerRecord<>(TOPIC, small(3)));
    gated.open(1);
    p.flush();
    assertThat(handedOn()).containsExactlyInAnyOrder(1, 2, 3);
    assertThat(handedOn().indexOf(3)).isLessThan(handedOn().indexOf(1));
  }

  @Test
  void withIdempotenceAFailedCheckInFailsTheRecordsQueuedBehindItInItsPartition() throws Exception {
    ClaimCheckProducer<String, byte[]> p = producer(config());
    Future<RecordMetadata> first = p.send(to(0, big(1)));
    AtomicReference<Exception> seen = new AtomicReference<>();
    Future<RecordMetadata> broken = p.send(to(0, big(2)), (md, e) -> seen.set(e));
    Future<RecordMetadata> behind = p.send(to(0, small(3)));
    Future<RecordMetadata> behindBig = p.send(to(0, big(4)));
    Future<RecordMetadata> elsewhere = p.send(to(1, big(5)));
    gated.failing(2);
    for (int id = 1; id <= 5; id++) {
      gated.open(id);
    }
    p.flush();

    assertThat(first.get(0, TimeUnit.SECONDS)).isNotNull();
    assertThat(elsewhere.get(0, TimeUnit.SECONDS)).isNotNull();
    assertThatThrownBy(broken::get).hasCauseInstanceOf(ClaimCheckException.class);
    assertThat(seen.get()).isInstanceOf(ClaimCheckException.class);
    assertThat(((ClaimCheckException) seen.get()).isRetriable()).isTrue();
    for (Future<RecordMetadata> f : List.of(behind, behindBig)) {
      assertThatThrownBy(f::get)
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(KafkaException.class)
          .hasCauseInstanceOf(ClaimCheckException.class);
    }
    assertThat(handedOn()).containsExactlyInAnyOrder(1, 5);

    p.send(to(0, small(6))); // later sends start afresh
    p.flush();
    assertThat(handedOn()).contains(6);
  }

  @Test
  void withoutIdempotenceTheRecordsBehindAFailureGoOnAfterItsOutcome() throws Exception {
    Map<String, Object> c = config();
    c.put("enable.idempotence", "false");
    ClaimCheckProducer<String, byte[]> p = producer(c);
    p.send(to(0, big(1)));
    Future<RecordMetadata> broken = p.send(to(0, big(2)));
    p.send(to(0, small(3)));
    gated.failing(2);
    gated.open(2);
    gated.open(1);
    p.flush();
    assertThatThrownBy(() -> broken.get(0, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    assertThat(handedOn()).containsExactly(1, 3);
  }

  @Test
  void aFullBufferFailsTheSendAfterMaxBlockWithATimeoutExceptionLikeKafka() throws Exception {
    Map<String, Object> c = config();
    c.put(ClaimCheckProducer.WRITE_BUFFER_BYTES, 150);
    c.put("max.block.ms", 0);
    ClaimCheckProducer<String, byte[]> p = producer(c);
    p.send(to(0, big(1)));
    gated.awaitStarted(1);
    assertThat(metric(p, "claimcheck-uploads-inflight")).isEqualTo(1.0);
    assertThat(metric(p, "claimcheck-bytes-pending")).isEqualTo((double) big(1).length);
    AtomicReference<Exception> seen = new AtomicReference<>();
    Future<RecordMetadata> refused = p.send(to(1, big(2)), (md, e) -> seen.set(e));
    assertThatThrownBy(() -> refused.get(0, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    assertThat(seen.get())
        .isInstanceOf(TimeoutException.class)
        .hasMessageContaining(ClaimCheckProducer.WRITE_BUFFER_BYTES);
    Future<RecordMetadata> smallOk =
        p.send(to(2, small(3))); // inline, nothing ahead: no room needed
    assertThat(smallOk.get(0, TimeUnit.SECONDS)).isNotNull();
    gated.open(1);
    p.flush();
    assertThat(metric(p, "claimcheck-bytes-pending")).isEqualTo(0.0);
    assertThat(handedOn()).containsExactly(3, 1);
  }

  private static Object metric(ClaimCheckProducer<?, ?> p, String name) {
    return p.metrics().entrySet().stream()
        .filter(
            e -> e.getKey().name().equals(name) && e.getKey().group().equals(ProducerMetrics.GROUP))
        .findFirst()
        .orElseThrow()
        .getValue()
        .metricValue();
  }

  @Test
  void commitWaitsForTheTransactionsCheckInsAndRefusesWhenOneFailed() throws Exception {
    Map<String, Object> c = config();
    c.put("transactional.id", "tx");
    ClaimCheckProducer<String, byte[]> p = producer(c);
    p.initTransactions();
    p.beginTransaction();
    p.send(to(0, big(1)));
    p.send(to(1, small(2)));
    CompletableFuture<Void> commit = CompletableFuture.runAsync(p::commitTransaction);
    gated.open(1);
    commit.get();
    assertThat(mock.transactionCommitted()).isTrue();
    assertThat(handedOn()).containsExactly(2, 1);

    p.beginTransaction();
    gated.failing(3);
    gated.open(3);
    Future<RecordMetadata> f = p.send(to(0, big(3)));
    assertThatThrownBy(f::get).hasCauseInstanceOf(ClaimCheckException.class);
    assertThatThrownBy(p::commitTransaction)
        .isInstanceOf(KafkaException.class)
        .hasMessageContaining("abort");
    p.abortTransaction();
    assertThat(mock.transactionAborted()).isTrue();
  }

  @Test
  void abortFailsTheTransactionsWaitingRecordsAndSendsNoneOfThem() throws Exception {
    Map<String, Object> c = config();
    c.put("transactional.id", "tx");
    ClaimCheckProducer<String, byte[]> p = producer(c);
    p.initTransactions();
    p.beginTransaction();
    Future<RecordMetadata> pending = p.send(to(0, big(1)));
    Future<RecordMetadata> behind = p.send(to(0, small(2)));
    gated.awaitStarted(1);
    p.abortTransaction();
    assertThatThrownBy(pending::get).hasCauseInstanceOf(TransactionAbortedException.class);
    assertThatThrownBy(behind::get).hasCauseInstanceOf(TransactionAbortedException.class);
    gated.open(1);
    p.beginTransaction();
    p.send(to(0, small(3)));
    p.commitTransaction();
    assertThat(handedOn()).containsExactly(3);
  }

  @Test
  void packsTheValuesWaitingTogetherIntoOnePut() {
    Map<String, Object> c = config();
    c.put(ClaimCheckProducer.WRITE_MAX_INFLIGHT, 1);
    c.put(ClaimCheckProducer.WRITE_PACK_MAX_CLAIMS, 4);
    ClaimCheckProducer<String, byte[]> p = producer(c);
    for (int id = 1; id <= 6; id++) {
      p.send(to(id % 2, big(id)));
    }
    for (int id = 1; id <= 6; id++) {
      gated.open(id);
    }
    p.flush();
    assertThat(handedOn()).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6);
    assertThat(handedOn().stream().filter(i -> i % 2 == 0)).containsExactly(2, 4, 6);
    assertThat(p.packsWritten()).isLessThan(6).isEqualTo(gated.packCalls.get());
    assertThat(
            MemoryStores.named(store).count(io.ankusa.claimcheck.store.memory.MemoryStore.Op.PUT))
        .isEqualTo(p.packsWritten());
  }

  @Test
  void closeWithATimeoutFailsWhatIsStillWaiting() {
    ClaimCheckProducer<String, byte[]> p = producer(config());
    Future<RecordMetadata> f = p.send(to(0, big(1)));
    p.close(Duration.ZERO);
    assertThatThrownBy(f::get)
        .cause()
        .isInstanceOf(KafkaException.class)
        .hasMessageContaining("closed");
    assertThat(mock.closed()).isTrue();
    assertThatThrownBy(() -> p.send(to(0, small(2)))).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void badClaimCheckKeysAreRefusedNamingTheKey() {
    Map<String, Object> c = config();
    c.put(ClaimCheckProducer.WRITE_MAX_INFLIGHT, 0);
    assertThatThrownBy(() -> producer(c))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ClaimCheckProducer.WRITE_MAX_INFLIGHT);
    Map<String, Object> typo = config();
    typo.put("claimcheck.write.bufer.bytes", 10);
    assertThatThrownBy(() -> producer(typo))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.write.bufer.bytes");
    Map<String, Object> fromProps = config();
    fromProps.put("bootstrap.servers", "localhost:1");
    fromProps.put("key.serializer", StringSerializer.class.getName());
    fromProps.put("value.serializer", ClaimCheckSerializer.class.getName());
    assertThatThrownBy(() -> new ClaimCheckProducer<>(fromProps))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("value.serializer");
  }
}
