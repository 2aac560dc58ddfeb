/**
 * Prefetch for plain consumers: {@link io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer}
 * wraps a {@code Consumer<byte[], byte[]>} and redeems each poll's refs concurrently into the
 * shared reader's cache, within a byte window, before the deserializer reads them ({@link
 * io.ankusa.claimcheck.kafka.prefetch.PrefetchStats} counts what it did). Kafka Streams gets it
 * through {@code io.ankusa.claimcheck.kafka.ClaimCheckClientSupplier}.
 */
package io.ankusa.claimcheck.kafka.prefetch;
