package io.ankusa.claimcheck.kafka;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.Secrets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;

/**
 * The serde's own {@code claimcheck.*} keys on top of {@link ClaimCheckConfig}'s; immutable and
 * thread-safe.
 *
 * <p>{@link #CONFIG_DEF} documents every key a serializer, deserializer or serde reads (the core
 * keys plus {@link #VALUE_SERDE}, {@link #KEY_SERDE}, {@link #STREAMS_FINAL_FAILURE} and {@code
 * ClaimCheckProducer}'s {@code claimcheck.write.*} keys). Building one validates the serde keys and
 * throws a {@link ConfigException} naming a bad one; the core keys are validated when the claim
 * check opens.
 */
public final class ClaimCheckSerdeConfig {

  /** The inner {@link Serde} class for values (default {@code ByteArraySerde}). */
  public static final String VALUE_SERDE = "claimcheck.value.serde";

  /** The inner {@link Serde} class for keys (default {@code ByteArraySerde}). */
  public static final String KEY_SERDE = "claimcheck.key.serde";

  /**
   * What {@link ClaimCheckDeserializationExceptionHandler} does with a record whose claim is gone,
   * corrupt or refused: {@code continue} or {@code fail}; unset means continue when a dead-letter
   * queue topic is configured, else fail.
   */
  public static final String STREAMS_FINAL_FAILURE = "claimcheck.streams.final.failure";

  /**
   * Kafka Streams with {@link ClaimCheckClientSupplier}: whether values for the app's sink topics
   * are checked in by the supplier's producer, off the stream thread (default true); changelog,
   * repartition and other internal topics are checked in by the serde as without it.
   */
  public static final String STREAMS_PIPELINED = "claimcheck.streams.pipelined";

  /** {@code ClaimCheckProducer}: the most value bytes held while waiting for check-in (64 MiB). */
  public static final String WRITE_BUFFER_BYTES = "claimcheck.write.buffer.bytes";

  /** {@code ClaimCheckProducer}: how many check-ins run at once (default 16). */
  public static final String WRITE_MAX_INFLIGHT = "claimcheck.write.max.inflight";

  /** {@code ClaimCheckProducer}: up to this many waiting values go up as one pack (1: off). */
  public static final String WRITE_PACK_MAX_CLAIMS = "claimcheck.write.pack.max.claims";

  /** {@code ClaimCheckProducer}: a pack of several values stops growing here (default 8 MiB). */
  public static final String WRITE_PACK_MAX_BYTES = "claimcheck.write.pack.max.bytes";

  static final long DEFAULT_WRITE_BUFFER_BYTES = 64L << 20;
  static final int DEFAULT_WRITE_MAX_INFLIGHT = 16;

  /** The consumer setting the poll budget is a share of. */
  static final String MAX_POLL_INTERVAL_MS = "max.poll.interval.ms";

  static final int DEFAULT_MAX_POLL_INTERVAL_MS = 300_000;
  static final String MAX_POLL_RECORDS = "max.poll.records";
  static final int DEFAULT_MAX_POLL_RECORDS = 500;

  private static final ConfigDef SERDE_DEF = serdeKeys(new ConfigDef());

  /** The keys the serde reads: the library's key policy, with the serde's own surface keys. */
  private static final Predicate<String> READS =
      ClaimCheckConfig.keysReadBy(key -> SERDE_DEF.names().contains(key));

  /** Every key the serde reads: {@link ClaimCheckConfig#CONFIG_DEF} plus the serde's own. */
  public static final ConfigDef CONFIG_DEF = serdeKeys(new ConfigDef(ClaimCheckConfig.CONFIG_DEF));

  private final Map<String, Object> values;
  private final long maxPollIntervalMs;
  private final int maxPollRecords;

  /**
   * Validates the serde keys of {@code originals} (the whole client config map may be passed), and
   * refuses a {@code claimcheck.*} key that no part of the serde reads: a misspelt setting would
   * otherwise be ignored without a word.
   */
  public ClaimCheckSerdeConfig(Map<String, ?> originals) {
    // The value of an unknown key is never shown: a misspelt secret key is still a secret.
    Secrets.refuseUnknown(
        originals,
        ClaimCheckConfig.PREFIX,
        ClaimCheckSerdeConfig::isSerdeKey,
        "the serde (" + new TreeSet<>(CONFIG_DEF.names()) + ")");
    Map<String, Object> own = new HashMap<>();
    for (String key : SERDE_DEF.names()) {
      if (originals.containsKey(key)) {
        own.put(key, originals.get(key));
      }
    }
    try {
      this.values = SERDE_DEF.parse(own);
    } catch (ConfigException e) {
      throw Secrets.scrubbed(e, originals, ClaimCheckSerdeConfig::isSerdeKey);
    }
    this.maxPollIntervalMs =
        consumerSetting(originals, MAX_POLL_INTERVAL_MS, DEFAULT_MAX_POLL_INTERVAL_MS);
    this.maxPollRecords =
        (int)
            Math.min(
                Integer.MAX_VALUE,
                consumerSetting(originals, MAX_POLL_RECORDS, DEFAULT_MAX_POLL_RECORDS));
  }

  /** Whether the serde reads {@code key}: a core key or one of the serde's own. */
  static boolean isSerdeKey(String key) {
    return READS.test(key);
  }

  private static ConfigDef serdeKeys(ConfigDef def) {
    return producerKeys(def)
        .define(
            VALUE_SERDE,
            Type.CLASS,
            Serdes.ByteArraySerde.class,
            serdeClass(),
            HIGH,
            "The Serde that turns values into bytes before check-in and back after redeem.")
        .define(
            KEY_SERDE,
            Type.CLASS,
            Serdes.ByteArraySerde.class,
            serdeClass(),
            HIGH,
            "The Serde that turns keys into bytes before check-in and back after redeem.")
        .define(
            STREAMS_FINAL_FAILURE,
            Type.STRING,
            null,
            finalFailure(),
            MEDIUM,
            "continue or fail: what the Streams deserialization exception handler does with a "
                + "record whose claim is gone, corrupt or refused. Unset: continue when "
                + "errors.dead.letter.queue.topic.name is set (the record goes there), else fail.")
        .define(
            STREAMS_PIPELINED,
            Type.BOOLEAN,
            true,
            MEDIUM,
            "Kafka Streams with ClaimCheckClientSupplier: values at or above the threshold for "
                + "the app's sink topics are checked in by the supplier's producer, concurrently "
                + "and off the stream thread, before it hands them to Kafka in order; a transaction "
                + "commits only once all its check-ins are durable. Changelog, repartition and "
                + "other internal topics are checked in by the serde, as with false. Read by the "
                + "serde and the supplier; without that supplier it has no effect.");
  }

  /** {@link #STREAMS_PIPELINED}, as validated. */
  public boolean streamsPipelined() {
    return (Boolean) values.get(STREAMS_PIPELINED);
  }

  /** The producer's keys, which the serde config knows too (one map may configure both). */
  private static ConfigDef producerKeys(ConfigDef def) {
    return def.define(
            WRITE_BUFFER_BYTES,
            Type.LONG,
            DEFAULT_WRITE_BUFFER_BYTES,
            Range.atLeast(1),
            MEDIUM,
            "ClaimCheckProducer: the most value bytes waiting for their check-in; a send that "
                + "finds no room blocks up to max.block.ms, then fails with a TimeoutException.")
        .define(
            WRITE_MAX_INFLIGHT,
            Type.INT,
            DEFAULT_WRITE_MAX_INFLIGHT,
            Range.between(1, 1024),
            MEDIUM,
            "ClaimCheckProducer: how many check-ins (uploads) run at once.")
        .define(
            WRITE_PACK_MAX_CLAIMS,
            Type.INT,
            1,
            Range.between(1, 1000),
            LOW,
            "ClaimCheckProducer: up to this many values waiting together are checked in as one "
                + "pack (one PUT); 1 writes one pack per value.")
        .define(
            WRITE_PACK_MAX_BYTES,
            Type.LONG,
            8L << 20,
            Range.atLeast(1),
            LOW,
            "ClaimCheckProducer: a pack of several values stops growing at this many bytes.");
  }

  private static ConfigDef.Validator serdeClass() {
    return (name, value) -> {
      if (value != null && !Serde.class.isAssignableFrom((Class<?>) value)) {
        throw new ConfigException(
            name, ((Class<?>) value).getName(), "not a " + Serde.class.getName());
      }
    };
  }

  private static ConfigDef.Validator finalFailure() {
    return (name, value) -> {
      if (value != null) {
        String v = ((String) value).trim().toLowerCase(Locale.ROOT);
        if (!v.equals("continue") && !v.equals("fail")) {
          throw new ConfigException(name, value, "must be continue or fail");
        }
      }
    };
  }

  /**
   * Reads a consumer setting as Kafka Streams resolves it for its main consumer ({@code
   * main.consumer.} over {@code consumer.} over unprefixed), else the consumer default.
   */
  private static long consumerSetting(Map<String, ?> originals, String name, long fallback) {
    for (String key : new String[] {"main.consumer." + name, "consumer." + name, name}) {
      Object v = originals.get(key);
      if (v != null) {
        long ms;
        try {
          ms = v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
          throw new ConfigException(key, v, "not a whole number");
        }
        if (ms < 1) {
          throw new ConfigException(key, v, "must be at least 1");
        }
        return ms;
      }
    }
    return fallback;
  }

  /** The inner serde class for keys ({@code isKey}) or values. */
  @SuppressWarnings("unchecked")
  Class<? extends Serde<?>> serdeClass(boolean isKey) {
    return (Class<? extends Serde<?>>) values.get(isKey ? KEY_SERDE : VALUE_SERDE);
  }

  /** A new inner serde for keys ({@code isKey}) or values, configured with {@code configs}. */
  @SuppressWarnings("unchecked")
  <T> Serde<T> innerSerde(Map<String, ?> configs, boolean isKey) {
    Serde<T> serde = (Serde<T>) Utils.newInstance(serdeClass(isKey));
    serde.configure(configs, isKey);
    return serde;
  }

  /**
   * Whether the Streams handler continues past a final failure: the configured choice, else whether
   * a dead-letter queue is configured.
   */
  boolean continueOnFinalFailure(boolean deadLetterQueueConfigured) {
    String v = (String) values.get(STREAMS_FINAL_FAILURE);
    return v == null ? deadLetterQueueConfigured : v.trim().equalsIgnoreCase("continue");
  }

  /** {@link #WRITE_BUFFER_BYTES}, as validated. */
  public long writeBufferBytes() {
    return (Long) values.get(WRITE_BUFFER_BYTES);
  }

  /** {@link #WRITE_MAX_INFLIGHT}, as validated. */
  public int writeMaxInflight() {
    return (Integer) values.get(WRITE_MAX_INFLIGHT);
  }

  /** {@link #WRITE_PACK_MAX_CLAIMS}, as validated. */
  public int writePackMaxClaims() {
    return (Integer) values.get(WRITE_PACK_MAX_CLAIMS);
  }

  /** {@link #WRITE_PACK_MAX_BYTES}, as validated. */
  public long writePackMaxBytes() {
    return (Long) values.get(WRITE_PACK_MAX_BYTES);
  }

  /** The consumer's {@code max.poll.interval.ms} (default 300000). */
  long maxPollIntervalMs() {
    return maxPollIntervalMs;
  }

  /** The consumer's {@code max.poll.records}, resolved as Streams does; default 500. */
  int maxPollRecords() {
    return maxPollRecords;
  }
}
