package io.ankusa.claimcheck.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;

/** A client supplier that records the producers the supplier it wraps hands out; thread-safe. */
final class CapturingSupplier implements KafkaClientSupplier {

  private final KafkaClientSupplier real;
  private final List<Producer<byte[], byte[]>> producers;

  CapturingSupplier(KafkaClientSupplier real, List<Producer<byte[], byte[]>> producers) {
    this.real = real;
    this.producers = producers;
  }

  @Override
  public Admin getAdmin(Map<String, Object> config) {
    return real.getAdmin(config);
  }

  @Override
  public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
    Producer<byte[], byte[]> p = real.getProducer(config);
    producers.add(p);
    return p;
  }

  @Override
  public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
    return real.getConsumer(config);
  }

  @Override
  public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
    return real.getRestoreConsumer(config);
  }

  @Override
  public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
    return real.getGlobalConsumer(config);
  }
}
