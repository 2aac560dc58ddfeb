package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerdeConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.kafka.internal.ClaimEmit;
import io.ankusa.claimcheck.kafka.internal.PendingCheckIns;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Kafka {@link Producer} that checks large values in concurrently and still hands each
 * partition's records to its inner producer in send order; thread-safe (as a {@code KafkaProducer}:
 * any thread may send; transactions from one thread).
 *
 * <p>Built from the properties a {@code KafkaProducer} takes plus the {@code claimcheck.*} keys
 * ({@code key.serializer}/{@code value.serializer} name the user's own serializers, not {@code
 * ClaimCheckSerializer}: the producer is the claim check), or around an existing {@code
 * Producer<byte[], byte[]>}. A value whose serialized form reaches {@code
 * claimcheck.threshold.bytes} is checked in and replaced by its ref with the {@link
 * ClaimCheckHeaders} marker, exactly as {@link ClaimCheckSerializer} emits it; smaller values pass
 * untouched (a stale marker removed). Keys are inline unless {@code claimcheck.keys.enabled}; then
 * a large key is checked in (content-addressed) in the sending thread, since it decides the
 * partition.
 *
 * <ul>
 *   <li><b>send returns at once.</b> Serialization runs in the caller's thread; the check-in runs
 *       on the producer's own pool, at most {@value #WRITE_MAX_INFLIGHT} uploads at once, each a
 *       blocking {@link ClaimCheck#checkIn} through the failover writer with its breakers and write
 *       deadline (or one {@link ClaimCheck#checkInAll} pack for up to {@value
 *       #WRITE_PACK_MAX_CLAIMS} values waiting together). Record timestamps are taken at send.
 *   <li><b>Back-pressure.</b> Values waiting for their check-in (and small values queued behind
 *       them) hold at most {@value #WRITE_BUFFER_BYTES} bytes; a send that finds no room blocks up
 *       to {@code max.block.ms}, then fails as Kafka's does: a {@link TimeoutException} in the
 *       callback and the future, send itself returning normally. A value larger than the whole
 *       buffer waits for an empty one. A record refused so was never accepted (as in Kafka): it
 *       does not fail the records of its partition accepted before or after it.
 *   <li><b>Order.</b> Records of one partition — an explicit partition, or one key under the
 *       default partitioner (computed at send from {@code partitionsFor} and Kafka's murmur2, and
 *       pinned in the record handed on, so partitions added meanwhile move it nowhere: the
 *       partition is the one Kafka's own {@code send} would have chosen) — reach the inner producer
 *       in send order whatever order their uploads finish in. Under a custom partitioner, records
 *       of one key keep their order. Records with neither key nor partition have no order, as under
 *       Kafka's sticky partitioner: each goes when its value is ready. A small value goes at once
 *       unless an earlier record of its partition still waits.
 *   <li><b>Failures.</b> A record whose check-in fails gets the {@link ClaimCheckException} in its
 *       callback and future, exactly like a failed send, and the records behind it in its partition
 *       wait for that outcome. With idempotence on (Kafka's default rule: explicit {@code
 *       enable.idempotence}, else on unless {@code acks} is 0/1, {@code retries} 0 or more than 5
 *       requests in flight), every record of the partition still waiting here when the failure is
 *       handed on fails too (a {@link KafkaException} whose cause is that failure), so no later
 *       record is delivered after an earlier one was dropped; records sent afterwards start afresh.
 *       Without idempotence, the later records go on.
 *   <li><b>Errors</b> ({@code OutOfMemoryError}, ...) settle their record too, never a hang: its
 *       callback and future get a {@link KafkaException} whose cause is the Error, its buffer bytes
 *       are released, and the first {@code flush} that waited for it — else {@code close} — throws
 *       a {@link KafkaException} with that cause. An Error in a check-in fails its record as a
 *       failed check-in does (the rules above); the producer goes on and the Error is rethrown on
 *       the upload thread, which is replaced. An Error thrown by a callback leaves its record's
 *       outcome as it was and the partition goes on. An Error thrown by the inner producer's {@code
 *       send} leaves it holding the record or not — nobody knows — so the producer fails for good:
 *       every record still waiting fails, none goes after it, and every later {@code send}, {@code
 *       flush}, {@code commitTransaction} and {@code close} throws a {@link KafkaException} naming
 *       the Error: close it and make a new one. Errors thrown in the caller's thread before a
 *       record is accepted (a serializer, a key's check-in) propagate from {@code send}, as in
 *       Kafka.
 *   <li><b>flush</b> waits for every check-in and send accepted before it; <b>close(timeout)</b>
 *       drains within its timeout, fails what is left and closes everything, even when interrupted.
 *   <li><b>Transactions.</b> {@code commitTransaction} waits (up to {@code max.block.ms}, else a
 *       {@link TimeoutException}; call it again) for the transaction's check-ins and hands, then
 *       commits; if a record of the transaction failed here it throws a {@link KafkaException}
 *       instead, and the transaction must be aborted. {@code abortTransaction} fails the
 *       transaction's waiting records ({@link TransactionAbortedException}), skips uploads not yet
 *       started and leaves at most orphan packs (removed by the collector). {@code
 *       sendOffsetsToTransaction} waits and refuses as {@code commitTransaction} does, then adds
 *       the offsets: a failure shows before the offsets join the transaction.
 *   <li><b>Callbacks</b> of records handed off run on the inner producer's I/O thread; those of
 *       records that failed here run on an upload thread or the caller's.
 *   <li><b>Metrics</b> ({@link #metrics()}: the inner producer's plus group {@code
 *       claimcheck-producer-metrics}): uploads in flight, bytes and records pending, check-in
 *       latency, packs written, and the serializer's claimed / inline / failed counts.
 * </ul>
 *
 * <p>Interceptors configured on the inner producer see serialized records (refs included).
 */
public final class ClaimCheckProducer<K, V> implements Producer<K, V> {

  /**
   * The most value bytes held while waiting for check-in (default 64 MiB); the same key as {@link
   * ClaimCheckSerdeConfig#WRITE_BUFFER_BYTES}.
   */
  public static final String WRITE_BUFFER_BYTES = ClaimCheckSerdeConfig.WRITE_BUFFER_BYTES;

  /** How many check-ins run at once (default 16). */
  public static final String WRITE_MAX_INFLIGHT = ClaimCheckSerdeConfig.WRITE_MAX_INFLIGHT;

  /** Up to this many values waiting together go up as one pack, one PUT (default 1: off). */
  public static final String WRITE_PACK_MAX_CLAIMS = ClaimCheckSerdeConfig.WRITE_PACK_MAX_CLAIMS;

  /** A pack of several values stops growing at this many bytes (default 8 MiB). */
  public static final String WRITE_PACK_MAX_BYTES = ClaimCheckSerdeConfig.WRITE_PACK_MAX_BYTES;

  private final Producer<byte[], byte[]> inner;
  private final Serializer<K> keySerializer;
  private final Serializer<V> valueSerializer;
  private final ClaimCheck claimCheck;
  private final ProducerSettings settings;
  private final Ticker ticker;
  private final LongSupplier wallClock;
  private final int threshold;
  private final boolean claimKeys;
  private final WriteBuffer buffer;
  private final CheckInPipeline pipeline;
  private final Uploader uploader;
  private final OrderLanes lanes;
  private final ProducerMetrics metrics;
  private final ProducerErrors errors = new ProducerErrors();
  private final boolean pendingOnly;

  /** In the Streams mode, the {@code client.id} Streams gave this producer (its thread's name). */
  private final Object streamsClientId;

  private final BooleanSupplier open = () -> !this.closed;
  private volatile long transaction;
  private volatile boolean closed;

  /** A producer configured like a {@code KafkaProducer} plus the {@code claimcheck.*} keys. */
  public ClaimCheckProducer(Map<String, Object> configs) {
    this(configs, null, null);
  }

  /** As {@link #ClaimCheckProducer(Map)}. */
  public ClaimCheckProducer(Properties properties) {
    this(ProducerParts.asMap(properties));
  }

  /** As {@link #ClaimCheckProducer(Map)}, with these (unconfigured, as in Kafka) serializers. */
  public ClaimCheckProducer(
      Map<String, Object> configs, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
    this(
        ProducerParts.kafkaProducer(configs),
        configs,
        ProducerParts.serializer(configs, keySerializer, true),
        ProducerParts.serializer(configs, valueSerializer, false),
        Ticker.system(),
        System::currentTimeMillis);
  }

  /**
   * Wraps {@code inner} (closed with this producer); {@code configs} holds the {@code claimcheck.*}
   * keys and whichever producer keys apply to {@code inner} ({@code max.block.ms}, {@code
   * enable.idempotence}, {@code acks}, {@code partitioner.class}, ...: see the class comment). The
   * serializers are used as given.
   */
  public ClaimCheckProducer(
      Producer<byte[], byte[]> inner,
      Map<String, ?> configs,
      Serializer<K> keySerializer,
      Serializer<V> valueSerializer) {
    this(
        inner, configs, keySerializer, valueSerializer, Ticker.system(), System::currentTimeMillis);
  }

  private ClaimCheckProducer(
      Producer<byte[], byte[]> inner,
      Map<String, ?> configs,
      Serializer<K> keySerializer,
      Serializer<V> valueSerializer,
      Ticker ticker,
      LongSupplier wallClock) {
    this(
        inner,
        configs,
        keySerializer,
        valueSerializer,
        c -> ClaimCheck.open(c, configs.get(ClaimCheck.METER_REGISTRY), ticker),
        ticker,
        wallClock);
  }

  /**
   * The producer a Kafka Streams client supplier hands Streams (as {@code ClaimCheckClientSupplier}
   * does): it wraps Streams' own {@code inner} producer (closed with it), checks in only the sink
   * topics' values {@code ClaimCheckSerde} left pending for it on the sending thread, and hands
   * every other record on byte for byte (the serde checked changelog and repartition values in
   * already). Order, back-pressure, {@code flush} and transactions are as above; a check-in that
   * failed {@code UNAVAILABLE} reaches the callback as a Kafka {@code RetriableException} whose
   * cause is the {@link ClaimCheckException}. {@code configs} is the map Streams passes to the
   * supplier's {@code getProducer}.
   */
  public static ClaimCheckProducer<byte[], byte[]> forStreams(
      Producer<byte[], byte[]> inner, Map<String, ?> configs) {
    Ticker ticker = Ticker.system();
    return new ClaimCheckProducer<>(
        inner,
        configs,
        new ByteArraySerializer(),
        new ByteArraySerializer(),
        c -> ClaimCheck.open(c, configs.get(ClaimCheck.METER_REGISTRY), ticker),
        ticker,
        System::currentTimeMillis,
        true);
  }

  /** For tests: {@code opener} opens the claim check for the validated config. */
  ClaimCheckProducer(
      Producer<byte[], byte[]> inner,
      Map<String, ?> configs,
      Serializer<K> keySerializer,
      Serializer<V> valueSerializer,
      Function<ClaimCheckConfig, ClaimCheck> opener,
      Ticker ticker,
      LongSupplier wallClock) {
    this(inner, configs, keySerializer, valueSerializer, opener, ticker, wallClock, false);
  }

  /**
   * {@code pendingOnly}: the Kafka Streams mode ({@link #forStreams}): only values the serde left
   * pending are checked in, every other record passes byte for byte.
   */
  ClaimCheckProducer(
      Producer<byte[], byte[]> inner,
      Map<String, ?> configs,
      Serializer<K> keySerializer,
      Serializer<V> valueSerializer,
      Function<ClaimCheckConfig, ClaimCheck> opener,
      Ticker ticker,
      LongSupplier wallClock,
      boolean pendingOnly) {
    this.pendingOnly = pendingOnly;
    this.streamsClientId = pendingOnly ? configs.get(ProducerConfig.CLIENT_ID_CONFIG) : null;
    this.inner = Objects.requireNonNull(inner, "inner");
    this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
    this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
    this.ticker = ticker;
    this.wallClock = wallClock;
    try {
      ClaimCheckSerdeConfig serdeConfig = new ClaimCheckSerdeConfig(configs); // refuses unknown
      ClaimCheckConfig config = new ClaimCheckConfig(configs);
      this.settings = ProducerSettings.from(serdeConfig, configs);
      this.threshold = config.getInt(ClaimCheckConfig.THRESHOLD_BYTES);
      this.claimKeys = config.getBoolean(ClaimCheckConfig.KEYS_ENABLED);
      this.claimCheck = opener.apply(config);
    } catch (RuntimeException e) {
      ProducerParts.closeQuietly(inner, keySerializer, valueSerializer);
      throw e;
    }
    String clientId = ProducerParts.clientId(configs);
    this.metrics = new ProducerMetrics(clientId);
    this.buffer = new WriteBuffer(settings.bufferBytes(), ticker);
    this.pipeline =
        new CheckInPipeline(inner, ticker, buffer, settings.idempotent(), metrics.counts(), errors);
    this.uploader = new Uploader(claimCheck, pipeline, settings, metrics, errors, ticker, clientId);
    this.lanes = new OrderLanes(inner, settings.keyedPartitioning());
    metrics.bind(uploader::inflight, buffer::used, pipeline::outstanding);
    if (pendingOnly) {
      // A stream thread's main consumer binds the thread to this producer at its polls.
      PendingCheckIns.offer(streamsClientId, open);
    }
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<K, V> record) {
    return send(record, null);
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<K, V> record, Callback given) {
    Callback callback = pendingOnly ? StreamsErrors.retriable(given) : given;
    if (closed) {
      throw new IllegalStateException("Cannot perform operation after producer has been closed");
    }
    if (errors.failed()) {
      throw errors.failure();
    }
    long deadline = ticker.read() + TimeUnit.MILLISECONDS.toNanos(settings.maxBlockMs());
    byte[] key = keySerializer.serialize(record.topic(), record.headers(), record.key());
    byte[] value = valueSerializer.serialize(record.topic(), record.headers(), record.value());
    boolean checksIn;
    if (pendingOnly) { // Streams: the serde decided; keys and other values are final already
      PendingCheckIns.bind(open);
      checksIn = PendingCheckIns.take(record.headers(), value);
    } else {
      key = claimKey(record, key);
      checksIn = ClaimEmit.checksIn(value, threshold, false, false);
      if (!checksIn) {
        ClaimEmit.inline(record.headers(), false, value);
        metrics.counts().inline();
      }
    }
    long timestamp = record.timestamp() != null ? record.timestamp() : wallClock.getAsLong();
    Object lane;
    try {
      lane = lanes.of(record.topic(), record.partition(), key);
    } catch (ApiException e) { // metadata did not arrive within max.block.ms: as Kafka reports it
      return failed(
          new ProducerRecord<>(
              record.topic(), record.partition(), timestamp, key, value, record.headers()),
          callback,
          e);
    }
    // The partition is pinned now: computed later, a grown partition count could move a record
    // behind the later records of its key that went to the new partition straight away.
    Integer partition = lane instanceof TopicPartition tp ? tp.partition() : record.partition();
    ProducerRecord<byte[], byte[]> staged =
        new ProducerRecord<>(record.topic(), partition, timestamp, key, value, record.headers());
    long reserve = 0;
    if (checksIn || pipeline.wouldQueue(lane)) {
      reserve = value == null ? 0 : value.length;
      if (!buffer.reserve(reserve, deadline)) {
        return failed(
            staged,
            callback,
            new TimeoutException(
                "no room for "
                    + reserve
                    + " bytes in "
                    + WRITE_BUFFER_BYTES
                    + "="
                    + settings.bufferBytes()
                    + " within "
                    + ProducerConfig.MAX_BLOCK_MS_CONFIG
                    + "="
                    + settings.maxBlockMs()));
      }
    }
    long held = reserve;
    long txn = transaction;
    PendingRecord r;
    try {
      r = pipeline.add(seq -> new PendingRecord(seq, lane, staged, checksIn, held, txn, callback));
    } catch (RuntimeException | Error e) { // not accepted (no memory for it): hold nothing
      buffer.release(held);
      throw e;
    }
    if (checksIn) {
      uploader.submit(r);
    } else {
      pipeline.sendIfReady(r);
    }
    return r.future;
  }

  private byte[] claimKey(ProducerRecord<K, V> record, byte[] key) {
    if (!ClaimEmit.checksIn(key, threshold, true, claimKeys)) {
      return ClaimEmit.inline(record.headers(), true, key);
    }
    try {
      return ClaimEmit.ref(record.headers(), true, claimCheck.checkInKey(key));
    } catch (ClaimCheckFailure f) {
      throw ClaimCheckException.of(f);
    }
  }

  private static Future<RecordMetadata> failed(
      ProducerRecord<byte[], byte[]> staged, Callback callback, RuntimeException e) {
    if (callback != null) {
      int p = staged.partition() == null ? -1 : staged.partition();
      callback.onCompletion(
          new RecordMetadata(new TopicPartition(staged.topic(), p), -1, -1, -1, -1, -1), e);
    }
    return CompletableFuture.failedFuture(e);
  }

  /**
   * Waits for every check-in and send accepted before this call, then flushes the inner one; throws
   * a {@link KafkaException} whose cause is the {@link Error} that failed one of those records
   * (each such Error is thrown by one flush), or the one that failed the producer.
   */
  @Override
  public void flush() {
    long mark = pipeline.mark();
    pipeline.await(r -> r.seq <= mark, Long.MAX_VALUE);
    inner.flush();
    KafkaException e = errors.takeUpTo(mark);
    if (e != null || (e = errors.failure()) != null) {
      throw e;
    }
  }

  @Override
  public void initTransactions() {
    bindHere();
    inner.initTransactions();
  }

  @Override
  public void beginTransaction() {
    bindHere();
    inner.beginTransaction();
    transaction++;
  }

  @Override
  public void sendOffsetsToTransaction(
      Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata) {
    awaitTransaction(transaction);
    inner.sendOffsetsToTransaction(offsets, groupMetadata);
  }

  @Override
  public void commitTransaction() {
    long t = transaction;
    awaitTransaction(t);
    inner.commitTransaction();
    pipeline.forget(t);
  }

  /**
   * Waits up to {@code max.block.ms} for transaction {@code t}'s check-ins and hand-offs; throws
   * when one of its records failed here (the transaction must be aborted) or on time-out.
   */
  private void awaitTransaction(long t) {
    if (!pipeline.await(
        r -> r.transaction == t, TimeUnit.MILLISECONDS.toNanos(settings.maxBlockMs()))) {
      throw new TimeoutException(
          "the transaction's check-ins did not finish within "
              + ProducerConfig.MAX_BLOCK_MS_CONFIG
              + "="
              + settings.maxBlockMs());
    }
    if (errors.failed()) {
      throw errors.failure();
    }
    if (pipeline.failedIn(t)) {
      throw new KafkaException(
          "a record of this transaction failed its check-in or send; " + "abort the transaction");
    }
  }

  /** In the Streams mode: this thread's serde may leave values pending for this producer. */
  private void bindHere() {
    if (pendingOnly) {
      PendingCheckIns.bind(open);
    }
  }

  @Override
  public void abortTransaction() {
    long t = transaction;
    pipeline.failAll(
        r -> r.transaction == t,
        new TransactionAbortedException("the transaction was aborted before this record was sent"));
    pipeline.await(r -> r.transaction == t, Long.MAX_VALUE);
    inner.abortTransaction();
    pipeline.forget(t);
  }

  @Override
  public List<PartitionInfo> partitionsFor(String topic) {
    return inner.partitionsFor(topic);
  }

  @Override
  public Map<MetricName, ? extends Metric> metrics() {
    Map<MetricName, Metric> all = new HashMap<>(inner.metrics());
    all.putAll(metrics.all());
    return java.util.Collections.unmodifiableMap(all);
  }

  @Override
  public void registerMetricForSubscription(KafkaMetric metric) {
    inner.registerMetricForSubscription(metric);
  }

  @Override
  public void unregisterMetricFromSubscription(KafkaMetric metric) {
    inner.unregisterMetricFromSubscription(metric);
  }

  @Override
  public Uuid clientInstanceId(Duration timeout) {
    return inner.clientInstanceId(timeout);
  }

  /** Packs written so far (check-in requests; for tests and the benchmark). */
  long packsWritten() {
    return metrics.packsWritten();
  }

  @Override
  public void close() {
    close(Duration.ofMillis(Long.MAX_VALUE));
  }

  /**
   * Stops accepting records, waits up to {@code timeout} for the pending check-ins and hand-offs,
   * fails what is left ({@link KafkaException}), then closes the inner producer with the time
   * remaining, the serializers and the claim check. Idempotent. Then throws a {@link
   * KafkaException} whose cause is an {@link Error} that failed a record and that no {@code flush}
   * reported, or the one that failed the producer for good. Interrupted, it still closes everything
   * (without waiting) and throws Kafka's {@code InterruptException}, flag set.
   */
  @Override
  public void close(Duration timeout) {
    if (closed) {
      return;
    }
    closed = true;
    if (pendingOnly) {
      PendingCheckIns.withdraw(streamsClientId, open);
    }
    long start = ticker.read();
    long budget =
        timeout.isNegative()
            ? 0
            : timeout.compareTo(Duration.ofDays(365)) > 0 ? Long.MAX_VALUE / 4 : timeout.toNanos();
    RuntimeException interrupted = null;
    try {
      boolean drained;
      try {
        drained = pipeline.await(r -> true, budget);
      } catch (InterruptException e) {
        interrupted = e;
        drained = false;
        budget = 0;
      }
      if (!drained) {
        pipeline.failAll(
            r -> true,
            new KafkaException("the producer closed before this record's check-in finished"));
      }
      long left = Math.max(0, budget - (ticker.read() - start));
      uploader.shutdown(left);
      inner.close(Duration.ofNanos(Math.max(0, budget - (ticker.read() - start))));
    } finally {
      ProducerParts.closeQuietly(keySerializer, valueSerializer);
      claimCheck.close();
      metrics.close();
    }
    if (interrupted != null) {
      throw interrupted;
    }
    KafkaException e = errors.takeAll();
    if (e != null) {
      throw e;
    }
  }
}
