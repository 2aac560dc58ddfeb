package io.ankusa.claimcheck.kafka.producer.internal;

import io.ankusa.claimcheck.kafka.internal.StreamsProducerFactory;
import io.ankusa.claimcheck.kafka.producer.ClaimCheckProducer;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;

/**
 * Not API: the {@link StreamsProducerFactory} service {@code ClaimCheckClientSupplier} loads,
 * making {@link ClaimCheckProducer#forStreams}; stateless and thread-safe.
 */
public final class StreamsCheckIns implements StreamsProducerFactory {

  /** For {@link java.util.ServiceLoader}. */
  public StreamsCheckIns() {}

  @Override
  public Producer<byte[], byte[]> wrap(Producer<byte[], byte[]> inner, Map<String, Object> config) {
    return ClaimCheckProducer.forStreams(inner, config);
  }
}
