package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Starts redeeming every ref of a polled batch at once through a claim check's shared reader, so
 * the deserializer then finds each claim in the reader's cache or joins its fetch under way;
 * thread-safe.
 *
 * <p>Invariants: {@link #prefetch} never throws for a record and never waits for a store — it
 * only starts redeems (each with the deadline now + {@code claimcheck.read.deadline.ms} on the
 * claim check's ticker) and ignores their outcomes, which the deserializer reports itself. One
 * batch starts at most one redeem per distinct ref, and only while the stored bytes started so
 * far fit the cache ({@code claimcheck.cache.max.bytes}): a claim the cache cannot hold until the
 * deserializer asks would be fetched twice. With the cache disabled nothing is prefetched. Each
 * batch counts every distinct ref once as started or skipped, and every marked value that is no
 * ref once as malformed; every started redeem is counted once more as succeeded or failed when it
 * completes.
 */
final class Prefetcher {

  private final ClaimCheck claimCheck;
  private final boolean keys;
  private final long deadlineNanos;
  private final long budgetBytes;
  private final LongAdder started = new LongAdder();
  private final LongAdder skipped = new LongAdder();
  private final LongAdder malformed = new LongAdder();
  private final LongAdder succeeded = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private volatile CompletableFuture<Void> last = CompletableFuture.completedFuture(null);

  Prefetcher(ClaimCheck claimCheck) {
    this.claimCheck = Objects.requireNonNull(claimCheck, "claimCheck");
    ClaimCheckConfig config = claimCheck.config();
    this.keys = config.getBoolean(ClaimCheckConfig.KEYS_ENABLED);
    this.deadlineNanos = config.readDeadline().toNanos();
    this.budgetBytes = config.getLong(ClaimCheckConfig.CACHE_MAX_BYTES);
  }

  /**
   * Starts the redeems of {@code records}' refs and returns a future completing (never
   * exceptionally) once all of them have.
   */
  CompletableFuture<Void> prefetch(Iterable<ConsumerRecord<byte[], byte[]>> records) {
    long deadline = claimCheck.ticker().read() + deadlineNanos;
    Batch batch = new Batch(deadline);
    for (ConsumerRecord<byte[], byte[]> r : records) {
      if (keys) {
        batch.consider(r, r.key(), true);
      }
      batch.consider(r, r.value(), false);
    }
    CompletableFuture<Void> all =
        CompletableFuture.allOf(batch.futures.toArray(new CompletableFuture<?>[0]));
    last = all;
    return all;
  }

  /** Returns the future of the most recent {@link #prefetch}. */
  CompletableFuture<Void> last() {
    return last;
  }

  PrefetchingConsumer.Stats stats() {
    return new PrefetchingConsumer.Stats(started.sum(), succeeded.sum(), failed.sum(),
        skipped.sum(), malformed.sum());
  }

  /** One batch's state: the refs seen, the cache budget left, the redeems started. */
  private final class Batch {
    final long deadline;
    final Set<ClaimRef> seen = new HashSet<>();
    final List<CompletableFuture<?>> futures = new ArrayList<>();
    long budgetLeft = budgetBytes;

    Batch(long deadline) {
      this.deadline = deadline;
    }

    void consider(ConsumerRecord<byte[], byte[]> r, byte[] data, boolean isKey) {
      if (!ClaimCheckHeaders.carriesRef(r.headers(), data, isKey)) {
        return;
      }
      ClaimRef ref;
      try {
        ref = RefFields.decode(data, isKey);
      } catch (ClaimCheckFailure e) {
        malformed.increment(); // the deserializer reports it with the reason
        return;
      }
      if (!seen.add(ref)) {
        return; // already started in this batch: the deserializer joins or hits that one
      }
      if (ref.length() > budgetLeft) {
        skipped.increment();
        return;
      }
      budgetLeft -= ref.length();
      CompletableFuture<byte[]> f;
      try {
        f = claimCheck.redeem(ref, deadline);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      started.increment();
      futures.add(f.handle((bytes, error) -> {
        (error == null ? succeeded : failed).increment();
        return null;
      }));
    }
  }
}
