package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.kafka.ClaimCheckSerdeConfig;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings a {@link ClaimCheckProducer} reads: its own {@code claimcheck.write.*} keys (defined
 * and validated by {@link ClaimCheckSerdeConfig}, which knows every key of the module) and the
 * Kafka producer keys that decide blocking, ordering and failure rules; immutable and thread-safe.
 * Built once, validated at once ({@link ConfigException} naming the key).
 */
record ProducerSettings(
    long bufferBytes,
    int maxInflight,
    int packMaxClaims,
    long packMaxBytes,
    long maxBlockMs,
    boolean idempotent,
    boolean transactional,
    boolean keyedPartitioning) {

  static final long DEFAULT_MAX_BLOCK_MS = 60_000L;

  /**
   * Reads the producer's own keys from {@code serde} (validated there) and the Kafka producer keys
   * from {@code configs} (a whole producer config map, or just the claim-check keys).
   */
  static ProducerSettings from(ClaimCheckSerdeConfig serde, Map<String, ?> configs) {
    long maxBlock = number(configs, ProducerConfig.MAX_BLOCK_MS_CONFIG, DEFAULT_MAX_BLOCK_MS);
    if (maxBlock < 0) {
      throw new ConfigException(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlock, "must be at least 0");
    }
    boolean transactional = configs.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG) != null;
    return new ProducerSettings(
        serde.writeBufferBytes(),
        serde.writeMaxInflight(),
        serde.writePackMaxClaims(),
        serde.writePackMaxBytes(),
        maxBlock,
        idempotent(configs, transactional),
        transactional,
        keyedPartitioning(configs));
  }

  /**
   * Kafka's rule: an explicit {@code enable.idempotence} wins; a transactional producer is
   * idempotent; otherwise idempotence is on unless {@code acks} is 0 or 1, {@code retries} is 0 or
   * {@code max.in.flight.requests.per.connection} is over 5.
   */
  private static boolean idempotent(Map<String, ?> configs, boolean transactional) {
    Object explicit = configs.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
    if (explicit != null) {
      return Boolean.parseBoolean(explicit.toString().trim());
    }
    if (transactional) {
      return true;
    }
    Object acks = configs.get(ProducerConfig.ACKS_CONFIG);
    if (acks != null
        && !acks.toString().trim().equalsIgnoreCase("all")
        && !acks.toString().trim().equals("-1")) {
      return false;
    }
    return number(configs, ProducerConfig.RETRIES_CONFIG, 1) != 0
        && number(configs, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5) <= 5;
  }

  /** Whether a record's key decides its partition: the default partitioner, keys not ignored. */
  private static boolean keyedPartitioning(Map<String, ?> configs) {
    Object ignore = configs.get(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG);
    boolean ignoreKeys = ignore != null && Boolean.parseBoolean(ignore.toString().trim());
    return configs.get(ProducerConfig.PARTITIONER_CLASS_CONFIG) == null && !ignoreKeys;
  }

  private static long number(Map<String, ?> configs, String key, long otherwise) {
    Object v = configs.get(key);
    if (v == null) {
      return otherwise;
    }
    try {
      return v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(key, v, "not a whole number");
    }
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "buffer %d B, %d uploads, packs of %d",
        bufferBytes,
        maxInflight,
        packMaxClaims);
  }
}
