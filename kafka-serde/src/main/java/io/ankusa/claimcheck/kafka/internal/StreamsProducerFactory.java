package io.ankusa.claimcheck.kafka.internal;

import java.util.Map;
import org.apache.kafka.clients.producer.Producer;

/**
 * Makes the pipelined producer {@code ClaimCheckClientSupplier} hands Kafka Streams;
 * implementations are thread-safe. Found through {@link java.util.ServiceLoader}: the producer's
 * package points to the supplier's ({@code ClaimCheckException}, the config), so the supplier
 * cannot name it back.
 */
public interface StreamsProducerFactory {

  /**
   * Wraps {@code inner} (Streams' producer, closed with the result) in a producer that checks in
   * the values the serde left pending ({@link PendingCheckIns}), configured from {@code config}.
   */
  Producer<byte[], byte[]> wrap(Producer<byte[], byte[]> inner, Map<String, Object> config);
}
