package io.ankusa.claimcheck.kafka.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
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
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pipelined producer when an {@link Error} is thrown — by a check-in, by the inner producer's
 * send, by a user callback — and when partitions are added while it runs. Fakes as in {@link
 * ClaimCheckProducerTest}; every wait is bounded, since the failure these tests catch is a hang.
 */
@Timeout(60)
class ClaimCheckProducerErrorTest {

  private static final int THRESHOLD = 100;
  private static final String TOPIC = "t";
  private static final Node NODE = new Node(0, "localhost", 9092);
  private static final long BOUND_S = 10;

  private final String store = "producer-errors-" + UUID.randomUUID();
  private final List<ClaimCheckProducer<?, ?>> opened = new ArrayList<>();
  private Inner mock;
  private GatedClaimCheck gated;

  /**
   * A MockProducer whose send throws for the records {@link #throwFor} picks, and which picks a
   * keyed record's partition at its send as Kafka's does, over the partitions it shows now.
   */
  static final class Inner extends MockProducer<byte[], byte[]> {
    volatile Predicate<ProducerRecord<byte[], byte[]>> throwFor = r -> false;
    volatile Error error;
    volatile int visible = 3;

    Inner(boolean autoComplete) {
      super(cluster(6), autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public synchronized Future<RecordMetadata> send(
        ProducerRecord<byte[], byte[]> r, Callback callback) {
      if (throwFor.test(r)) {
        throw error;
      }
      if (r.partition() == null && r.key() != null) {
        int p = Utils.toPositive(Utils.murmur2(r.key())) % visible;
        r = new ProducerRecord<>(r.topic(), p, r.timestamp(), r.key(), r.value(), r.headers());
      }
      return super.send(r, callback);
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
      return super.partitionsFor(topic).subList(0, visible);
    }
  }

  private static Cluster cluster(int partitions) {
    List<PartitionInfo> parts = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      parts.add(new PartitionInfo(TOPIC, p, NODE, new Node[] {NODE}, new Node[] {NODE}));
    }
    return new Cluster("c", List.of(NODE), parts, Set.of(), Set.of());
  }

  @AfterEach
  void close() {
    for (ClaimCheckProducer<?, ?> p : opened) {
      try {
        p.close(Duration.ZERO);
      } catch (KafkaException expected) { // an Error the test left unreported
      }
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

  private ClaimCheckProducer<String, byte[]> producer(
      Map<String, Object> config, boolean autoComplete) {
    mock = new Inner(autoComplete);
    ClaimCheckProducer<String, byte[]> p =
        new ClaimCheckProducer<>(
            mock,
            config,
            new StringSerializer(),
            new ByteArraySerializer(),
            c -> gated = new GatedClaimCheck(c),
            new DrivenTicker(),
            () -> 1_000L);
    opened.add(p);
    return p;
  }

  private ClaimCheckProducer<String, byte[]> producer() {
    return producer(config(), true);
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

  private static ProducerRecord<String, byte[]> to(int partition, String key, byte[] value) {
    return new ProducerRecord<>(TOPIC, partition, key, value);
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

  private static RecordMetadata ok(Future<RecordMetadata> f) throws Exception {
    return f.get(BOUND_S, TimeUnit.SECONDS);
  }

  /** Asserts {@code f} fails within the bound with an exception whose root cause is {@code e}. */
  private static void failsWith(Future<RecordMetadata> f, Throwable e) {
    assertThatThrownBy(() -> f.get(BOUND_S, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .rootCause()
        .isSameAs(e);
  }

  /** Runs {@code call} in another thread; it must return (or throw) within the bound. */
  private static void bounded(Runnable call) throws Throwable {
    try {
      CompletableFuture.runAsync(call).get(BOUND_S, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause();
    }
  }

  private static double bytesPending(ClaimCheckProducer<?, ?> p) {
    return (double)
        p.metrics().entrySet().stream()
            .filter(
                e ->
                    e.getKey().name().equals("claimcheck-bytes-pending")
                        && e.getKey().group().equals(ProducerMetrics.GROUP))
            .findFirst()
            .orElseThrow()
            .getValue()
            .metricValue();
  }

  @Test
  void anOutOfMemoryErrorInACheckInFailsItsRecordsAndTheProducerGoesOn() throws Throwable {
    ClaimCheckProducer<String, byte[]> p = producer();
    OutOfMemoryError oom = new OutOfMemoryError("test: no heap for this check-in");
    gated.throwing(1, oom);
    AtomicReference<Exception> seen = new AtomicReference<>();
    Future<RecordMetadata> broken = p.send(to(0, big(1)), (md, e) -> seen.set(e));
    Future<RecordMetadata> behind = p.send(to(0, small(2)));
    Future<RecordMetadata> elsewhere = p.send(to(1, big(3)));
    gated.open(1);
    gated.open(3);

    failsWith(broken, oom);
    assertThat(seen.get()).isInstanceOf(KafkaException.class).hasCause(oom);
    failsWith(behind, oom); // idempotence: nothing of partition 0 goes after a failed record
    assertThat(ok(elsewhere)).isNotNull();
    assertThatThrownBy(() -> bounded(p::flush))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(oom);
    assertThat(bytesPending(p)).isEqualTo(0.0);
    assertThat(handedOn()).containsExactly(3);

    assertThat(ok(p.send(to(0, small(4))))).isNotNull(); // the producer goes on
    bounded(p::flush); // the Error was reported once
    assertThat(handedOn()).containsExactly(3, 4);
    bounded(() -> p.close(Duration.ofSeconds(BOUND_S)));
  }

  @Test
  void closeReportsACheckInErrorNoFlushReportedAndATransactionRefusesToCommitInsteadOfTimingOut()
      throws Throwable {
    Map<String, Object> c = config();
    c.put("transactional.id", "tx");
    ClaimCheckProducer<String, byte[]> p = producer(c, true);
    p.initTransactions();
    p.beginTransaction();
    OutOfMemoryError oom = new OutOfMemoryError("test: no heap for this check-in");
    gated.throwing(1, oom);
    Future<RecordMetadata> broken = p.send(to(0, big(1)));
    gated.open(1);
    assertThatThrownBy(() -> bounded(p::commitTransaction))
        .isInstanceOf(KafkaException.class)
        .hasMessageContaining("abort");
    failsWith(broken, oom);
    bounded(p::abortTransaction);
    assertThat(mock.transactionAborted()).isTrue();
    assertThatThrownBy(() -> bounded(() -> p.close(Duration.ofSeconds(BOUND_S))))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(oom);
    assertThat(mock.closed()).isTrue();
  }

  @Test
  void anErrorFromTheInnerSendFailsTheProducerForGoodAndNothingGoesAfterIt() throws Throwable {
    ClaimCheckProducer<String, byte[]> p = producer();
    OutOfMemoryError oom = new OutOfMemoryError("test: no heap in the inner producer");
    mock.error = oom;
    mock.throwFor = r -> r.key() != null && new String(r.key()).equals("boom");
    Future<RecordMetadata> broken = p.send(to(0, "boom", big(1))); // handed on by an upload thread
    Future<RecordMetadata> behind = p.send(to(0, small(2)));
    Future<RecordMetadata> waiting = p.send(to(1, big(3))); // its check-in never finishes
    gated.open(1);

    failsWith(broken, oom);
    failsWith(behind, oom);
    failsWith(waiting, oom);
    assertThatThrownBy(() -> p.send(to(2, small(4))))
        .isInstanceOf(KafkaException.class)
        .hasMessageContaining("failed for good")
        .cause()
        .isSameAs(oom);
    assertThatThrownBy(() -> bounded(p::flush))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(oom);
    assertThatThrownBy(() -> bounded(p::flush))
        .isInstanceOf(KafkaException.class)
        .hasMessageContaining("failed for good");
    assertThat(bytesPending(p)).isEqualTo(0.0);
    assertThat(handedOn()).isEmpty();
    // the upload of 3 still hangs: close interrupts it after the 200 ms it has
    assertThatThrownBy(() -> bounded(() -> p.close(Duration.ofMillis(200))))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(oom);
    assertThat(mock.closed()).isTrue();
  }

  @Test
  void anErrorFromTheInnerSendInTheCallersThreadFailsTheRecordNotTheCall() throws Throwable {
    ClaimCheckProducer<String, byte[]> p = producer();
    StackOverflowError error = new StackOverflowError("test: in the inner producer");
    mock.error = error;
    mock.throwFor = r -> true;
    AtomicReference<Exception> seen = new AtomicReference<>();
    Future<RecordMetadata> broken = p.send(to(0, small(1)), (md, e) -> seen.set(e));
    failsWith(broken, error);
    assertThat(seen.get()).isInstanceOf(KafkaException.class).hasCause(error);
    assertThatThrownBy(() -> p.send(to(0, small(2))))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(error);
  }

  @Test
  void anErrorFromACallbackCalledInTheInnerSendIsReportedByFlushAndThePartitionGoesOn()
      throws Throwable {
    ClaimCheckProducer<String, byte[]> p = producer(); // MockProducer calls back inside send
    StackOverflowError error = new StackOverflowError("test: in the user's callback");
    Future<RecordMetadata> first =
        p.send(
            to(0, small(1)),
            (md, e) -> {
              throw error;
            });
    Future<RecordMetadata> big = p.send(to(0, big(2)));
    Future<RecordMetadata> behind = p.send(to(0, small(3)));
    gated.open(2);
    assertThat(ok(first)).isNotNull();
    assertThat(ok(big)).isNotNull();
    assertThat(ok(behind)).isNotNull();
    assertThatThrownBy(() -> bounded(p::flush))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(error);
    assertThat(handedOn()).containsExactly(1, 2, 3);
    assertThat(ok(p.send(to(0, small(4))))).isNotNull(); // not a failure of the producer
  }

  @Test
  void anErrorFromACallbackOnTheInnerProducersThreadDoesNotEscapeIntoIt() throws Throwable {
    ClaimCheckProducer<String, byte[]> p = producer(config(), false);
    // not an OutOfMemoryError: where it escapes into the test's thread, JUnit ends the whole run
    InternalError error = new InternalError("test: in the user's callback");
    Future<RecordMetadata> first =
        p.send(
            to(0, small(1)),
            (md, e) -> {
              throw error;
            });
    assertThat(mock.completeNext()).isTrue(); // the inner producer's I/O thread: must not throw
    assertThat(ok(first)).isNotNull();
    assertThatThrownBy(() -> bounded(() -> p.close(Duration.ofSeconds(BOUND_S))))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(error);
  }

  @Test
  void anErrorFromTheCallbackOfAFailedCheckInDoesNotStopItsPartition() throws Throwable {
    Map<String, Object> c = config();
    c.put("enable.idempotence", "false");
    ClaimCheckProducer<String, byte[]> p = producer(c, true);
    OutOfMemoryError oom = new OutOfMemoryError("test: in the user's callback");
    gated.failing(1);
    Future<RecordMetadata> failed =
        p.send(
            to(0, big(1)),
            (md, e) -> {
              throw oom;
            });
    Future<RecordMetadata> behind = p.send(to(0, small(2)));
    gated.open(1);
    assertThatThrownBy(() -> failed.get(BOUND_S, TimeUnit.SECONDS))
        .hasCauseInstanceOf(ClaimCheckException.class);
    assertThat(ok(behind)).isNotNull();
    assertThatThrownBy(() -> bounded(p::flush))
        .isInstanceOf(KafkaException.class)
        .cause()
        .isSameAs(oom);
    assertThat(bytesPending(p)).isEqualTo(0.0);
    assertThat(handedOn()).containsExactly(2);
  }

  @Test
  void aKeysPartitionIsPinnedAtSendSoAddedPartitionsDoNotPutItBehindLaterRecords()
      throws Exception {
    ClaimCheckProducer<String, byte[]> p = producer();
    String key = null;
    for (int i = 0; key == null; i++) {
      int h = Utils.toPositive(Utils.murmur2(("k" + i).getBytes()));
      if (h % 3 != h % 6) {
        key = "k" + i;
      }
    }
    int h = Utils.toPositive(Utils.murmur2(key.getBytes()));
    Future<RecordMetadata> before = p.send(new ProducerRecord<>(TOPIC, key, big(1)));
    mock.visible = 6; // partitions added; the producer's metadata knows them now
    Future<RecordMetadata> after = p.send(new ProducerRecord<>(TOPIC, key, small(2)));
    Future<RecordMetadata> later = p.send(new ProducerRecord<>(TOPIC, key, big(3)));
    gated.open(3);
    assertThat(ok(after).partition()).isEqualTo(h % 6);
    assertThat(ok(later).partition()).isEqualTo(h % 6);
    gated.open(1);
    p.flush();
    assertThat(ok(before).partition()).isEqualTo(h % 3); // where Kafka's send would have put it
    assertThat(ok(later).partition()).isEqualTo(h % 6);
    assertThat(ok(later).offset()).isGreaterThan(ok(after).offset());
    assertThat(handedOn()).containsExactly(2, 3, 1);
  }
}
