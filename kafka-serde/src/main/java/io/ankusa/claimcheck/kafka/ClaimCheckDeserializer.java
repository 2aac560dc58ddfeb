package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.PluginLifecycle;
import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.internal.Markers;
import io.ankusa.claimcheck.kafka.internal.PollBoundaries;
import io.ankusa.claimcheck.kafka.internal.SerdeMetrics;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Utils;

/**
 * Redeems claim-check refs and hands the claimed bytes to an inner deserializer; anything else goes
 * to the inner deserializer untouched; thread-safe once configured.
 *
 * <p>The bytes decide ({@link RefFields}, one rule for every surface): a field that does not start
 * with the ref magic goes to the inner deserializer, marked or not (Kafka Streams' {@code
 * ChangedSerializer} and foreign-key join wrappers serialize several values with one {@code
 * Headers}, so a marker may describe another part of the record); one that does carries a ref when
 * it has the {@link ClaimCheckHeaders} marker or is an intact ref frame (magic, length and CRC),
 * with or without other headers. The ref is redeemed through the process's shared reader, verified
 * against its length and checksum, and decompressed.
 *
 * <p><b>Deadlines.</b> Each redeem's deadline comes from the poll budget: records deserialized back
 * to back share {@code max.poll.interval.ms × claimcheck.poll.budget.ratio}, and no redeem waits
 * longer than {@code claimcheck.read.deadline.ms}; see {@link PollBudget} for how a poll's window
 * is told from the next, and {@link ClaimCheckConsumerInterceptor} for exact windows.
 *
 * <p><b>Failures</b> are {@link ClaimCheckException}s: {@code UNAVAILABLE} (retriable: the consumer
 * must not skip the record; seek back to it and poll again), {@code NOT_FOUND}, {@code CORRUPT},
 * and {@code REFUSED} (a tenant outside {@code claimcheck.tenants.allowed}, or a marked value that
 * starts with the ref magic but fails its length or CRC check); a ref written by a newer library is
 * {@code UNAVAILABLE} ("upgrade the reader"). A {@code KafkaConsumer} wraps them in a {@code
 * RecordDeserializationException}. An {@link Error} met while redeeming is rethrown as itself,
 * never reported as a failure.
 */
public class ClaimCheckDeserializer<T> implements Deserializer<T> {

  private final Deserializer<T> given;
  private final Ticker ticker;
  private final SerdeMetrics metrics = new SerdeMetrics("redeemed");
  private final PluginLifecycle<State<T>> lifecycle =
      new PluginLifecycle<>("ClaimCheckDeserializer", "inner deserializer");

  private record State<T>(
      ClaimCheck claimCheck, Deserializer<T> inner, boolean isKey, PollBudget budget) {}

  /**
   * A deserializer whose inner serde comes from {@code claimcheck.value.serde}/{@code key.serde}.
   */
  public ClaimCheckDeserializer() {
    this(null);
  }

  /**
   * A deserializer around {@code inner} (configured and closed with this one); the {@code
   * claimcheck.*.serde} keys are then ignored.
   */
  public ClaimCheckDeserializer(Deserializer<T> inner) {
    this(inner, Ticker.system());
  }

  /** With the clock every deadline is read on (tests drive it). */
  ClaimCheckDeserializer(Deserializer<T> inner, Ticker ticker) {
    this.given = inner;
    this.ticker = ticker;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    ClaimCheckSerdeConfig serdeConfig = new ClaimCheckSerdeConfig(configs);
    ClaimCheckConfig config = new ClaimCheckConfig(configs);
    Deserializer<T> inner;
    AutoCloseable owned;
    if (given != null) { // configured again: a given inner is kept
      given.configure(configs, isKey);
      inner = given;
      owned = given;
    } else {
      Serde<T> serde = serdeConfig.innerSerde(configs, isKey);
      inner = serde.deserializer();
      owned = serde;
    }
    PollBudget budget =
        new PollBudget(
            ticker,
            serdeConfig.maxPollIntervalMs(),
            config.getDouble(ClaimCheckConfig.POLL_BUDGET_RATIO),
            config.readDeadline().toNanos(),
            PollBoundaries::epoch,
            serdeConfig.maxPollRecords());
    lifecycle.open(config, configs, ticker, owned, cc -> new State<>(cc, inner, isKey, budget));
  }

  @Override
  public T deserialize(String topic, byte[] data) {
    return deserialize(topic, null, data);
  }

  @Override
  public T deserialize(String topic, Headers headers, byte[] data) {
    State<T> s = lifecycle.get();
    if (!Markers.carriesRef(headers, data, s.isKey)) {
      metrics.inline();
      return s.inner.deserialize(topic, headers, data);
    }
    ClaimRef ref = decode(s, data);
    long deadline = s.budget.begin();
    boolean failedRetriably = true;
    try {
      T value = s.inner.deserialize(topic, headers, redeem(s, ref, deadline));
      failedRetriably = false;
      return value;
    } catch (ClaimCheckException e) {
      failedRetriably = e.isRetriable(); // a final failure may be skipped within the same poll
      throw e;
    } finally {
      s.budget.end(failedRetriably); // the inner deserializer's time counts too: it is not idle
    }
  }

  /**
   * A buffer that does not start with the ref magic, or an unmarked one that cannot be a ref frame
   * (longer or shorter than any), goes to the inner deserializer as it is: no copy here.
   */
  @Override
  public T deserialize(String topic, Headers headers, ByteBuffer data) {
    State<T> s = lifecycle.get();
    if (!Markers.carriesRef(headers, data, s.isKey)) {
      metrics.inline();
      return s.inner.deserialize(topic, headers, data);
    }
    return deserialize(topic, headers, Utils.toNullableArray(data));
  }

  private ClaimRef decode(State<T> s, byte[] data) {
    try {
      return RefFields.decode(data, s.isKey);
    } catch (ClaimCheckFailure f) {
      throw count(ClaimCheckException.of(f));
    }
  }

  /** The shared blocking redeem of core: gate, deadline, typed failures; an Error as itself. */
  private byte[] redeem(State<T> s, ClaimRef ref, long deadline) {
    try {
      byte[] bytes = s.claimCheck.redeemBlocking(ref, deadline);
      metrics.claimed();
      return bytes;
    } catch (ClaimCheckFailure f) {
      throw count(ClaimCheckException.of(f));
    }
  }

  private ClaimCheckException count(ClaimCheckException e) {
    metrics.failed(e.reason());
    return e;
  }

  /** The counts behind the plugin metrics (for tests). */
  SerdeMetrics metrics() {
    return metrics;
  }

  /** The poll budget (for tests). */
  PollBudget budget() {
    return lifecycle.get().budget;
  }

  /** Closes the inner deserializer and releases the claim check; idempotent. */
  @Override
  public void close() {
    lifecycle.close(given);
  }

  /**
   * A {@code ClaimCheckDeserializer} that is also a Kafka {@code Monitorable} plugin (kafka-clients
   * 4.1 and later), so its counts appear beside the client's own metrics; thread-safe once
   * configured.
   *
   * <p>{@code value.deserializer=io.ankusa.claimcheck.kafka.ClaimCheckDeserializer$Monitored}.
   * Older clients cannot load this class (it implements an interface they lack): they use {@link
   * ClaimCheckDeserializer}, whose counts reach Micrometer only.
   */
  public static class Monitored<T> extends ClaimCheckDeserializer<T>
      implements org.apache.kafka.common.metrics.Monitorable {

    /** A {@code Monitored} whose inner serde comes from the {@code claimcheck.*.serde} keys. */
    public Monitored() {
      super();
    }

    /** A {@code Monitored} around {@code inner} (configured and closed with this one). */
    public Monitored(Deserializer<T> inner) {
      super(inner);
    }

    @Override
    public void withPluginMetrics(org.apache.kafka.common.metrics.PluginMetrics pluginMetrics) {
      PluginMetricsBinding.bind(metrics(), pluginMetrics);
    }
  }
}
