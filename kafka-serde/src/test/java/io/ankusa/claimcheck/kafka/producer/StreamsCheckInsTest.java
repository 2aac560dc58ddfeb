package io.ankusa.claimcheck.kafka.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.DrivenTicker;
import io.ankusa.claimcheck.kafka.internal.PendingCheckIns;
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
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The producer {@code ClaimCheckClientSupplier} hands Kafka Streams, against a {@link MockProducer}
 * and a gated claim check: it checks in only what the serde left pending, passes every other record
 * byte for byte, and adds no offsets to a transaction nor commits it before the transaction's
 * check-ins are durable. {@code max.block.ms=0} and a driven ticker make "still waiting" a time-out
 * the test sees at once, with no sleeps.
 */
@Timeout(30)
class StreamsCheckInsTest {

  private static final int THRESHOLD = 100;
  private static final String TOPIC = "sink";
  private static final Node NODE = new Node(0, "localhost", 9092);
  private static final Map<TopicPartition, OffsetAndMetadata> OFFSETS =
      Map.of(new TopicPartition("in", 0), new OffsetAndMetadata(7));
  private static final ConsumerGroupMetadata GROUP = new ConsumerGroupMetadata("app");

  private final String store = "streams-producer-" + UUID.randomUUID();
  private final DrivenTicker ticker = new DrivenTicker();
  private final List<ClaimCheckProducer<byte[], byte[]>> opened = new ArrayList<>();
  private MockProducer<byte[], byte[]> mock;
  private GatedClaimCheck gated;

  @AfterEach
  void close() {
    opened.forEach(p -> p.close(Duration.ZERO));
    MemoryStores.forget(store);
  }

  private ClaimCheckProducer<byte[], byte[]> producer() {
    Map<String, Object> c = new HashMap<>();
    c.put("claimcheck.stores", "faulty:" + store);
    c.put("claimcheck.threshold.bytes", THRESHOLD);
    c.put("transactional.id", "app-1");
    c.put("max.block.ms", 0);
    List<PartitionInfo> parts = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      parts.add(new PartitionInfo(TOPIC, p, NODE, new Node[] {NODE}, new Node[] {NODE}));
    }
    Cluster cluster = new Cluster("c", List.of(NODE), parts, Set.of(), Set.of());
    mock =
        new MockProducer<>(
            cluster, true, null, new ByteArraySerializer(), new ByteArraySerializer());
    ClaimCheckProducer<byte[], byte[]> p =
        new ClaimCheckProducer<>(
            mock,
            c,
            new ByteArraySerializer(),
            new ByteArraySerializer(),
            cc -> gated = new GatedClaimCheck(cc),
            ticker,
            () -> 1_000L,
            true);
    opened.add(p);
    p.initTransactions();
    p.beginTransaction();
    return p;
  }

  private static byte[] big(int id) {
    byte[] b = new byte[THRESHOLD + id];
    b[0] = (byte) id;
    return b;
  }

  /** A record for partition 0 as the serde leaves it for a sink topic: in full, marked pending. */
  private static ProducerRecord<byte[], byte[]> pending(byte[] value) {
    RecordHeaders h = new RecordHeaders();
    PendingCheckIns.mark(h, value);
    return new ProducerRecord<>(TOPIC, 0, null, null, value, h);
  }

  @Test
  void onlyPendingValuesAreCheckedInAndEveryOtherRecordPassesByteForByte() throws Exception {
    ClaimCheckProducer<byte[], byte[]> p = producer();
    // a changelog record the serde checked in already: a ref with its marker
    RecordHeaders marked = new RecordHeaders();
    ClaimCheckHeaders.mark(marked, false);
    byte[] ref = RefCodec.encode(gated.checkInKey(big(9)));
    p.send(new ProducerRecord<>("app-store-changelog", 0, null, null, ref, marked));
    // a large value under a serde that is not ours: inline, as with a plain producer
    byte[] foreign = big(8);
    p.send(new ProducerRecord<>(TOPIC, 1, null, foreign));
    Future<RecordMetadata> sink = p.send(pending(big(1)));
    gated.open(1);
    sink.get();
    p.flush();
    p.commitTransaction();

    List<ProducerRecord<byte[], byte[]>> sent = mock.history();
    assertThat(sent).hasSize(3);
    assertThat(sent.get(0).value()).isEqualTo(ref);
    assertThat(sent.get(0).headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER)).isNotNull();
    assertThat(sent.get(1).value()).isEqualTo(foreign);
    assertThat(sent.get(1).headers().toArray()).isEmpty();
    ProducerRecord<byte[], byte[]> claimed = sent.get(2);
    assertThat(claimed.headers().lastHeader(PendingCheckIns.HEADER)).isNull();
    assertThat(claimed.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER)).isNotNull();
    assertThat(gated.redeem(RefCodec.decode(claimed.value()), Long.MAX_VALUE / 2).join())
        .isEqualTo(big(1));
    assertThat(gated.packCalls.get()).isEqualTo(1);
  }

  @Test
  void offsetsAndCommitWaitForTheTransactionsCheckIns() throws Exception {
    ClaimCheckProducer<byte[], byte[]> p = producer();
    Future<RecordMetadata> sink = p.send(pending(big(1)));
    gated.awaitStarted(1);

    assertThatThrownBy(() -> p.sendOffsetsToTransaction(OFFSETS, GROUP))
        .isInstanceOf(TimeoutException.class);
    assertThat(mock.sentOffsets()).isFalse();
    assertThatThrownBy(p::commitTransaction).isInstanceOf(TimeoutException.class);
    assertThat(mock.transactionCommitted()).isFalse();
    assertThat(mock.history()).isEmpty();

    gated.open(1);
    sink.get();
    p.flush(); // the hand-off settled: nothing of the transaction is outstanding
    p.sendOffsetsToTransaction(OFFSETS, GROUP);
    p.commitTransaction();
    assertThat(mock.sentOffsets()).isTrue();
    assertThat(mock.transactionCommitted()).isTrue();
    assertThat(mock.history()).hasSize(1);
  }

  @Test
  void anUnavailableCheckInIsRetriableForStreamsAndItsTransactionNeverCommits() throws Exception {
    ClaimCheckProducer<byte[], byte[]> p = producer();
    AtomicReference<Exception> seen = new AtomicReference<>();
    gated.failing(1);
    Future<RecordMetadata> sink = p.send(pending(big(1)), (md, e) -> seen.set(e));
    gated.open(1);
    assertThatThrownBy(sink::get).hasCauseInstanceOf(ClaimCheckException.class);
    p.flush();

    assertThat(seen.get()).isInstanceOf(RetriableException.class);
    assertThat(seen.get().getCause()).isInstanceOf(ClaimCheckException.class);
    assertThatThrownBy(() -> p.sendOffsetsToTransaction(OFFSETS, GROUP))
        .isInstanceOf(KafkaException.class)
        .hasMessageContaining("abort");
    assertThatThrownBy(p::commitTransaction).isInstanceOf(KafkaException.class);
    p.abortTransaction();
    assertThat(mock.transactionCommitted()).isFalse();
    assertThat(mock.transactionAborted()).isTrue();
    assertThat(mock.history()).isEmpty();
  }

  @Test
  void aPendingMarkOnOtherBytesIsRefusedNotCheckedIn() {
    ClaimCheckProducer<byte[], byte[]> p = producer();
    RecordHeaders h = new RecordHeaders();
    PendingCheckIns.mark(h, big(1));
    ProducerRecord<byte[], byte[]> wrapped = new ProducerRecord<>(TOPIC, 0, null, null, big(2), h);
    assertThatThrownBy(() -> p.send(wrapped)).isInstanceOf(IllegalStateException.class);
    assertThat(gated.packCalls.get()).isZero();
  }

  @Test
  void theSendingThreadIsBoundWhileTheProducerIsOpen() {
    ClaimCheckProducer<byte[], byte[]> p = producer();
    assertThat(PendingCheckIns.boundHere()).isTrue();
    assertThat(CompletableFuture.supplyAsync(PendingCheckIns::boundHere).join()).isFalse();
    p.close(Duration.ZERO);
    assertThat(PendingCheckIns.boundHere()).isFalse();
  }
}
