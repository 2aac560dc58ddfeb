package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.kafka.internal.StreamsProducerFactory;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
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
 * not read. The restore and global consumers and the admin client are the wrapped supplier's own:
 * restoration copies raw bytes and redeems nothing.
 *
 * <p>The producer pipelines check-ins for the app's sink topics ({@value
 * ClaimCheckSerdeConfig#STREAMS_PIPELINED}, default true): on a stream thread whose producer is
 * this one, {@code ClaimCheckSerde} leaves a sink topic's value at or above the threshold in full,
 * marked pending, and the producer checks it in on its own pool (up to {@code
 * claimcheck.write.max.inflight} at once) and hands each partition's records to Kafka in send
 * order. Changelog, repartition and other internal topics are checked in by the serde on the stream
 * thread, as without the pipeline; the producer passes those records unchanged. {@code flush},
 * {@code sendOffsetsToTransaction} and {@code commitTransaction} wait for the check-ins, so under
 * {@code exactly_once_v2} a transaction commits only once every claim its records name is durable;
 * a failed check-in fails its record through Streams' callback (a {@code RetriableException} when
 * {@code UNAVAILABLE}), the production exception handler decides, and the transaction is aborted,
 * never committed. The producer reads the {@code claimcheck.*} keys of the map Streams passes to
 * {@link #getProducer} (the top-level keys, {@code producer.claimcheck.*} overrides applied).
 *
 * <p>Each stream thread's main consumer prefetches within its own window ({@code
 * claimcheck.prefetch.max.bytes}), which refills as the serde deserializes the buffered records, in
 * whatever order Streams picks them; the windows of all threads pin their claims in the one shared
 * cache, and while pins fill {@code claimcheck.cache.max.bytes} the rest wait, so {@code
 * num.stream.threads} × the window need not fit the cache.
 */
public final class ClaimCheckClientSupplier implements KafkaClientSupplier {

  private static final StreamsProducerFactory PIPELINE =
      ServiceLoader.load(
              StreamsProducerFactory.class, ClaimCheckClientSupplier.class.getClassLoader())
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no " + StreamsProducerFactory.class.getName() + " service in this jar"));

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

  /**
   * Returns the wrapped supplier's producer, inside the pipelined claim-check producer unless
   * {@value ClaimCheckSerdeConfig#STREAMS_PIPELINED} is false: it checks in the sink topics' values
   * the serde left pending, off the stream thread, and passes every other record unchanged; {@code
   * flush}, {@code sendOffsetsToTransaction} and {@code commitTransaction} wait for the check-ins
   * (see the class comment). A bad key throws {@code ConfigException} naming it (and closes the
   * producer just built).
   */
  @Override
  public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
    Producer<byte[], byte[]> producer = delegate.getProducer(config);
    try {
      if (!new ClaimCheckSerdeConfig(config).streamsPipelined()) {
        return producer;
      }
      return PIPELINE.wrap(producer, config);
    } catch (RuntimeException e) {
      try {
        producer.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
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
