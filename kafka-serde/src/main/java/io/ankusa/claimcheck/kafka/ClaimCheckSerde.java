package io.ankusa.claimcheck.kafka;

import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A {@link ClaimCheckSerializer} and a {@link ClaimCheckDeserializer} as one {@link Serde}, for
 * Kafka Streams; thread-safe once configured.
 *
 * <p>As the default: {@code default.value.serde=io.ankusa.claimcheck.kafka.ClaimCheckSerde} with
 * the {@code claimcheck.*} keys (and {@code claimcheck.value.serde} naming the inner serde) in the
 * Streams config; Streams configures it. Per operator: {@code new ClaimCheckSerde<>(innerSerde)},
 * then {@link #configure} it with the config map yourself — Streams does not configure serdes
 * passed to operators. State stores and repartition topics then hold refs, not the large values.
 */
public class ClaimCheckSerde<T> implements Serde<T> {

  private final ClaimCheckSerializer<T> serializer;
  private final ClaimCheckDeserializer<T> deserializer;

  /** A serde whose inner serde comes from {@code claimcheck.value.serde}/{@code key.serde}. */
  public ClaimCheckSerde() {
    this.serializer = new ClaimCheckSerializer<>();
    this.deserializer = new ClaimCheckDeserializer<>();
  }

  /** A serde around {@code inner} (configured and closed with this one). */
  public ClaimCheckSerde(Serde<T> inner) {
    this.serializer = new ClaimCheckSerializer<>(inner.serializer());
    this.deserializer = new ClaimCheckDeserializer<>(inner.deserializer());
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    serializer.configure(configs, isKey);
    try {
      deserializer.configure(configs, isKey);
    } catch (RuntimeException e) {
      serializer.close();
      throw e;
    }
  }

  @Override
  public Serializer<T> serializer() {
    return serializer;
  }

  @Override
  public Deserializer<T> deserializer() {
    return deserializer;
  }

  /** Closes both halves; idempotent. */
  @Override
  public void close() {
    serializer.close();
    deserializer.close();
  }
}
