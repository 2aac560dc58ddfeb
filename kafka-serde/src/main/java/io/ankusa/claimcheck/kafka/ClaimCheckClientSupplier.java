package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * A Kafka Streams {@link KafkaClientSupplier} whose main consumer is a {@link PrefetchingConsumer},
 * so each poll's claim-check refs are redeemed concurrently before the stream thread deserializes
 * them; thread-safe (it holds nothing but the supplier it wraps).
 *
 * <p>With config alone (Streams reads {@code default.client.supplier} when no supplier is passed):
 *
 * <pre>{@code
 * default.client.supplier=io.ankusa.claimcheck.kafka.ClaimCheckClientSupplier
 * }</pre>
 *
 * <p>or in code: {@code new KafkaStreams(topology, props, new ClaimCheckClientSupplier())}.
 *
 * <p>The prefetching consumer is configured from the {@code claimcheck.*} keys of the config map
 * Streams passes to {@link #getConsumer}. That map holds the top-level Streams config (so the same
 * {@code claimcheck.*} keys the {@code ClaimCheckSerde} reads arrive, and equal store settings
 * share one reader and cache with it) with {@code consumer.claimcheck.*} and {@code
 * main.consumer.claimcheck.*} overrides applied, their prefixes stripped. Keep the store settings
 * the serde sees and the ones the consumer sees equal, or the prefetch fills a cache the serde does
 * not read. The restore and global consumers, the producer and the admin client are the wrapped
 * supplier's own: restoration copies raw bytes and redeems nothing.
 *
 * <p>Each stream thread's main consumer prefetches within its own window ({@code
 * claimcheck.prefetch.max.bytes}), which refills as the serde deserializes the buffered records, in
 * whatever order Streams picks them; the windows of all threads pin their claims in the one shared
 * cache, and while pins fill {@code claimcheck.cache.max.bytes} the rest wait, so {@code
 * num.stream.threads} × the window need not fit the cache.
 */
public final class ClaimCheckClientSupplier implements KafkaClientSupplier {

  private final KafkaClientSupplier delegate;

  /** Wraps {@link PlainClientSupplier}: Kafka's own clients, as Streams' default supplier makes. */
  public ClaimCheckClientSupplier() {
    this(new PlainClientSupplier());
  }

  /** Wraps {@code delegate}: its main consumer gets the prefetch, every other client is its own. */
  public ClaimCheckClientSupplier(KafkaClientSupplier delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public Admin getAdmin(Map<String, Object> config) {
    return delegate.getAdmin(config);
  }

  @Override
  public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
    return delegate.getProducer(config);
  }

  /**
   * Returns the wrapped supplier's main consumer inside a {@link PrefetchingConsumer} configured
   * from {@code config}'s {@code claimcheck.*} keys; a bad or missing key throws {@code
   * ConfigException} naming it (and closes the consumer just built).
   */
  @Override
  public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
    Consumer<byte[], byte[]> consumer = delegate.getConsumer(config);
    try {
      return new PrefetchingConsumer(consumer, config);
    } catch (RuntimeException e) {
      try {
        consumer.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  @Override
  public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
    return delegate.getRestoreConsumer(config);
  }

  @Override
  public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
    return delegate.getGlobalConsumer(config);
  }
}
