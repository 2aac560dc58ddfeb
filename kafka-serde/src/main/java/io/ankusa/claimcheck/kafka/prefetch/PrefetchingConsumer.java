package io.ankusa.claimcheck.kafka.prefetch;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.kafka.internal.PendingCheckIns;
import io.ankusa.claimcheck.kafka.internal.PollBoundaries;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * A byte-array {@link Consumer} that, on each {@link #poll}, starts redeeming every claim-check ref
 * in the returned batch concurrently, so the deserializer that runs afterwards finds the claims in
 * the shared reader's cache (or joins their fetches under way); exactly as thread-safe as the
 * consumer it wraps (a {@code KafkaConsumer}: one thread, plus {@link #wakeup()} from any).
 *
 * <p>Without it, a consumer that deserializes a batch of {@code n} refs one after the other waits
 * {@code n} store round trips; with it, the batch costs about one round trip times {@code n /
 * claimcheck.read.max.inflight}. {@code poll} returns the delegate's records at once and unchanged;
 * prefetch failures are ignored here (the deserializer reports them with their reason). A ref is
 * recognised as the deserializer does ({@code ClaimCheckHeaders.carriesRef}): values always, keys
 * when {@code claimcheck.keys.enabled}.
 *
 * <p>It wraps {@code Consumer<byte[], byte[]>} only: it must see the raw bytes before any
 * deserializer runs. A plain consumer uses it like this, deserializing afterwards with a {@code
 * ClaimCheckDeserializer} configured from the same {@code claimcheck.*} keys (equal store settings
 * share one reader and cache in the process, which is what makes the prefetched bytes visible to
 * it):
 *
 * <pre>{@code
 * Consumer<byte[], byte[]> consumer = new PrefetchingConsumer(
 *     new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer()), props);
 * deserializer.configure(props, false);
 * for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
 *   MyValue v = deserializer.deserialize(r.topic(), r.headers(), r.value());
 * }
 * }</pre>
 *
 * <p>Kafka Streams gets it through {@code io.ankusa.claimcheck.kafka.ClaimCheckClientSupplier}.
 *
 * <p>Prefetch is bounded by bytes, not by the poll: at most {@code claimcheck.prefetch.max.bytes}
 * (default 32 MiB) of claims — counted as the bytes each occupies once inflated — are fetched ahead
 * of the application, and the window refills as the application deserializes them, so a poll of 500
 * × 1 MiB refs is fetched progressively, a window ahead of the reader. A prefetched claim stays
 * pinned in the reader's cache until the deserializer reads it (or its deadline, {@code
 * claimcheck.read.deadline.ms}, passes unread: it is then released at the next poll or read), so it
 * is never evicted before it is read and never fetched twice; a ref the application reaches before
 * its turn is left to the deserializer. Pins are reserved within {@code
 * claimcheck.cache.max.bytes}, which every consumer of the process shares: while the cache has no
 * room left for pins, prefetch waits. A prefetch makes no copy and decompresses nothing: it
 * verifies the stored bytes once before the cache keeps them, as every fetch does, and the
 * deserializer verifies and copies what it reads; the store is asked once.
 */
public final class PrefetchingConsumer extends ForwardingConsumer<byte[], byte[]> {

  private final ClaimCheck claimCheck;
  private final boolean ownsClaimCheck;
  private final Prefetcher prefetcher;

  /** This consumer's {@code client.id}, if configured from a map (a stream thread's names it). */
  private final Object clientId;

  /**
   * Wraps {@code delegate}, opening a claim check from the {@code claimcheck.*} keys of {@code
   * config} (other keys are ignored; a bad one throws {@code ConfigException} naming it); {@link
   * #close()} closes both.
   */
  public PrefetchingConsumer(Consumer<byte[], byte[]> delegate, Map<String, ?> config) {
    super(delegate);
    this.claimCheck = ClaimCheck.open(Objects.requireNonNull(config, "config"));
    this.ownsClaimCheck = true;
    this.prefetcher = new Prefetcher(claimCheck);
    this.clientId = config.get(ConsumerConfig.CLIENT_ID_CONFIG);
  }

  /**
   * Wraps {@code delegate}, prefetching through {@code claimCheck}, which stays the caller's to
   * close; {@link #close()} closes only the delegate.
   */
  public PrefetchingConsumer(Consumer<byte[], byte[]> delegate, ClaimCheck claimCheck) {
    super(delegate);
    this.claimCheck = Objects.requireNonNull(claimCheck, "claimCheck");
    this.ownsClaimCheck = false;
    this.prefetcher = new Prefetcher(claimCheck);
    this.clientId = null;
  }

  /** Polls the delegate, starts the batch's prefetches and returns its records unchanged. */
  @Override
  public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
    // A stream thread's main consumer: bind the thread to its pipelined producer before the first
    // record is processed, so even its first large value is left for the producer to check in.
    PendingCheckIns.bindOffered(clientId);
    ConsumerRecords<byte[], byte[]> records = delegate.poll(timeout);
    // This thread's deserializers now see a new poll: its redeems get a fresh poll budget.
    PollBoundaries.signal();
    if (records.isEmpty()) {
      prefetcher.drain(); // releases what expired, starts what the window now takes
    } else {
      prefetcher.prefetch(records);
    }
    return records;
  }

  /** Returns the counts of prefetches so far. */
  public PrefetchStats stats() {
    return prefetcher.stats();
  }

  /**
   * Waits up to {@code timeout} until no prefetch this consumer started is still running (refs
   * still waiting for the window are not waited for) and returns whether that happened; for tests
   * and benchmarks — a consumer never needs to.
   */
  public boolean awaitPrefetch(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    try {
      for (List<CompletableFuture<?>> running = prefetcher.running();
          !running.isEmpty();
          running = prefetcher.running()) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        CompletableFuture.allOf(running.toArray(new CompletableFuture<?>[0]))
            .handle((v, e) -> null)
            .get(left, TimeUnit.NANOSECONDS);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return true; // cannot happen: handle() never completes exceptionally
    }
  }

  @Override
  public void close() {
    try {
      delegate.close();
    } finally {
      release();
    }
  }

  @Override
  @SuppressWarnings("deprecation")
  public void close(Duration timeout) {
    try {
      delegate.close(timeout);
    } finally {
      release();
    }
  }

  @Override
  public void close(CloseOptions option) {
    try {
      delegate.close(option);
    } finally {
      release();
    }
  }

  private void release() {
    prefetcher.close();
    if (ownsClaimCheck) {
      claimCheck.close();
    }
  }
}
