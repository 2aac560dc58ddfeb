package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Builds what a {@link ClaimCheckProducer} made from a config map holds: the inner byte-array
 * producer and the user's serializers; stateless and thread-safe.
 */
final class ProducerParts {

  private static final AtomicInteger IDS = new AtomicInteger();

  private ProducerParts() {}

  static Map<String, Object> asMap(Properties properties) {
    Map<String, Object> m = new HashMap<>();
    properties.stringPropertyNames().forEach(k -> m.put(k, properties.getProperty(k)));
    properties.forEach((k, v) -> m.put(k.toString(), v));
    return m;
  }

  /** A {@code KafkaProducer<byte[], byte[]>} from {@code configs} minus the claim-check keys. */
  static Producer<byte[], byte[]> kafkaProducer(Map<String, Object> configs) {
    Map<String, Object> kafka = new HashMap<>();
    configs.forEach(
        (k, v) -> {
          if (!ClaimCheckConfig.isClaimCheckKey(k)) {
            kafka.put(k, v);
          }
        });
    return new KafkaProducer<>(kafka, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /**
   * {@code given} as it is, else the configured {@code key.serializer}/{@code value.serializer}
   * instantiated and configured; a {@link ClaimCheckSerializer} there is refused (the producer
   * checks values in itself).
   */
  @SuppressWarnings("unchecked")
  static <T> Serializer<T> serializer(
      Map<String, Object> configs, Serializer<T> given, boolean isKey) {
    String key =
        isKey
            ? ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG
            : ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG;
    if (given != null) {
      return given;
    }
    Object v = configs.get(key);
    if (v == null) {
      throw new ConfigException(
          key, null, "missing: name the serializer of the records' " + (isKey ? "keys" : "values"));
    }
    Serializer<T> s;
    try {
      s =
          v instanceof Class<?> c
              ? (Serializer<T>) Utils.newInstance(c)
              : Utils.newInstance(v.toString().trim(), Serializer.class);
    } catch (ClassNotFoundException | KafkaException | ClassCastException e) {
      throw new ConfigException(key, v, "not a Serializer class: " + e.getMessage());
    }
    if (s instanceof ClaimCheckSerializer) {
      throw new ConfigException(
          key,
          v,
          "ClaimCheckProducer checks values in itself: name the "
              + "inner serializer here (e.g. ByteArraySerializer)");
    }
    s.configure(configs, isKey);
    return s;
  }

  static String clientId(Map<String, ?> configs) {
    Object id = configs.get(ProducerConfig.CLIENT_ID_CONFIG);
    return id != null && !id.toString().isBlank()
        ? id.toString()
        : "claimcheck-producer-" + IDS.incrementAndGet();
  }

  /** Closes each of {@code closeables} that is not null, logging failures. */
  static void closeQuietly(AutoCloseable... closeables) {
    for (AutoCloseable c : closeables) {
      Utils.closeQuietly(c, "claim-check producer part");
    }
  }
}
