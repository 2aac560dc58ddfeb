package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.PluginLifecycle;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.internal.ClaimEmit;
import io.ankusa.claimcheck.kafka.internal.PendingCheckIns;
import io.ankusa.claimcheck.kafka.internal.SerdeMetrics;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Serializes with an inner serializer and checks the result in when it reaches {@code
 * claimcheck.threshold.bytes}, emitting a small ref instead; thread-safe once configured.
 *
 * <p>Drops into a producer with config alone: {@code
 * value.serializer=io.ankusa.claimcheck.kafka.ClaimCheckSerializer}, {@code claimcheck.stores=...}
 * and {@code claimcheck.value.serde} (default {@code ByteArraySerde}) naming the inner serde.
 *
 * <ul>
 *   <li>At or above the threshold the inner bytes are checked in through the failover writer, the
 *       ref is returned only once a store durably holds them, and the record gets the {@link
 *       ClaimCheckHeaders} marker. Without headers ({@link #serialize(String, Object)}) the ref is
 *       returned unmarked and a deserializer recognises it by its magic and CRC.
 *   <li>Below it, the inner bytes are returned as they are (the same array: no copy, no prefix) and
 *       the marker is removed (Kafka Streams forwards input headers), so the marker always tells
 *       whether the last field written with these headers is a ref; see {@link ClaimCheckHeaders}
 *       for what it means when Streams writes one field with several calls. A value that starts
 *       with the ref magic ({@code 00 F7 AC 6B}: no text, JSON, Protobuf or Avro encoding does) is
 *       checked in whatever its size, so what this serializer emits starts with the magic only when
 *       it is a ref.
 *   <li>For a Kafka Streams foreign-key join's value-hash pseudo topic ({@link HashOnlyTopics}),
 *       whose bytes Streams only hashes, the inner bytes are returned as they are whatever their
 *       size, and the headers are left alone: a check-in there would make every hash differ.
 *   <li>In a Kafka Streams app whose client supplier is {@link ClaimCheckClientSupplier}, on a
 *       stream thread whose producer is that supplier's, a value for a sink topic (not a changelog,
 *       repartition or other internal topic: {@code StreamsTopics}) is returned in full, marked
 *       pending ({@code claimcheck.pending}), and that producer checks it in before the broker send
 *       ({@value ClaimCheckSerdeConfig#STREAMS_PIPELINED}, default true; see the module README).
 *   <li>Keys stay inline unless {@code claimcheck.keys.enabled=true}; then a key's pack id comes
 *       from its content, so one key always yields the same ref and partitioning and compaction
 *       keep working.
 *   <li>A failed check-in throws {@link ClaimCheckException} ({@code UNAVAILABLE}) within the write
 *       deadline (the largest {@code claimcheck.store.op.deadline.ms}).
 * </ul>
 */
public class ClaimCheckSerializer<T> implements Serializer<T> {

  private final Serializer<T> given;
  private final SerdeMetrics metrics = new SerdeMetrics("checked in");
  private final PluginLifecycle<State<T>> lifecycle =
      new PluginLifecycle<>("ClaimCheckSerializer", "inner serializer");

  private record State<T>(
      ClaimCheck claimCheck,
      Serializer<T> inner,
      boolean isKey,
      int threshold,
      boolean claimKeys,
      boolean pipelined,
      String applicationId) {}

  /** A serializer whose inner serde comes from {@code claimcheck.value.serde}/{@code key.serde}. */
  public ClaimCheckSerializer() {
    this(null);
  }

  /**
   * A serializer around {@code inner} (configured and closed with this one); the {@code
   * claimcheck.*.serde} keys are then ignored.
   */
  public ClaimCheckSerializer(Serializer<T> inner) {
    this.given = inner;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    ClaimCheckSerdeConfig serdeConfig = new ClaimCheckSerdeConfig(configs);
    ClaimCheckConfig config = new ClaimCheckConfig(configs);
    Serializer<T> inner;
    AutoCloseable owned;
    if (given != null) { // configured again: a given inner is kept
      given.configure(configs, isKey);
      inner = given;
      owned = given;
    } else {
      Serde<T> serde = serdeConfig.innerSerde(configs, isKey);
      inner = serde.serializer();
      owned = serde;
    }
    int threshold = config.getInt(ClaimCheckConfig.THRESHOLD_BYTES);
    boolean claimKeys = config.getBoolean(ClaimCheckConfig.KEYS_ENABLED);
    boolean pipelined = serdeConfig.streamsPipelined();
    Object appId = configs.get("application.id");
    String applicationId = appId == null ? null : appId.toString();
    lifecycle.open(
        config,
        configs,
        Ticker.system(),
        owned,
        cc -> new State<>(cc, inner, isKey, threshold, claimKeys, pipelined, applicationId));
  }

  @Override
  public byte[] serialize(String topic, T data) {
    return serialize(topic, null, data);
  }

  @Override
  public byte[] serialize(String topic, Headers headers, T data) {
    State<T> s = lifecycle.get();
    byte[] bytes = s.inner.serialize(topic, headers, data);
    if (!ClaimEmit.checksIn(bytes, s.threshold, s.isKey, s.claimKeys)) {
      metrics.inline();
      return ClaimEmit.inline(headers, s.isKey, bytes);
    }
    if (HashOnlyTopics.isHashOnly(topic)) { // Streams hashes these bytes, never writes them
      metrics.inline();
      return bytes;
    }
    if (defers(s, topic, headers)) { // the thread's producer checks it in, off this thread
      PendingCheckIns.mark(headers, bytes);
      return bytes;
    }
    ClaimRef ref;
    try {
      ref = s.isKey ? s.claimCheck.checkInKey(bytes) : s.claimCheck.checkIn(bytes);
    } catch (ClaimCheckFailure f) {
      ClaimCheckException e = ClaimCheckException.of(f);
      metrics.failed(e.reason());
      throw e;
    }
    metrics.claimed();
    return ClaimEmit.ref(headers, s.isKey, ref);
  }

  /** The counts behind the plugin metrics (for tests). */
  /**
   * Whether a value for {@code topic} is left to the pipelined Streams producer: a value, with
   * headers, for a sink topic, on a thread whose producer takes pending values.
   */
  private static boolean defers(State<?> s, String topic, Headers headers) {
    return s.pipelined
        && !s.isKey
        && headers != null
        && PendingCheckIns.boundHere()
        && !StreamsTopics.isInternal(s.applicationId, topic);
  }

  SerdeMetrics metrics() {
    return metrics;
  }

  /** Closes the inner serializer and releases the claim check; idempotent. */
  @Override
  public void close() {
    lifecycle.close(given);
  }

  /**
   * A {@code ClaimCheckSerializer} that is also a Kafka {@code Monitorable} plugin (kafka-clients
   * 4.1 and later), so its counts appear beside the client's own metrics; thread-safe once
   * configured.
   *
   * <p>{@code value.serializer=io.ankusa.claimcheck.kafka.ClaimCheckSerializer$Monitored}. Older
   * clients cannot load this class (it implements an interface they lack): they use {@link
   * ClaimCheckSerializer}, whose counts reach Micrometer only.
   */
  public static class Monitored<T> extends ClaimCheckSerializer<T>
      implements org.apache.kafka.common.metrics.Monitorable {

    /** A {@code Monitored} whose inner serde comes from the {@code claimcheck.*.serde} keys. */
    public Monitored() {
      super();
    }

    /** A {@code Monitored} around {@code inner} (configured and closed with this one). */
    public Monitored(Serializer<T> inner) {
      super(inner);
    }

    @Override
    public void withPluginMetrics(org.apache.kafka.common.metrics.PluginMetrics pluginMetrics) {
      PluginMetricsBinding.bind(metrics(), pluginMetrics);
    }
  }
}
