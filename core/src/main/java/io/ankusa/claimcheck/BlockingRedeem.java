package io.ankusa.claimcheck;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The redeem every Kafka surface runs on its own thread (the deserializer, the Connect transform):
 * through the request gate, bounded by a deadline, failures typed; stateless and thread-safe.
 *
 * <p>The redeem allows {@link InlineCalls} until its deadline: the store request of a flight this
 * thread leads (and its second look) may run on this thread, so a store that supports it answers
 * without a hand-off; the reader's limit, queue, coalescing and deadline apply as to any fetch.
 *
 * <p>The gate's permit is taken and given back on the calling thread (it is that thread's). The
 * wait lasts until the deadline plus {@link #GRACE_NANOS}, time for the reader's own deadline
 * answer to arrive. An interrupt restores the thread's flag. Every outcome but the bytes is a
 * {@link ClaimCheckFailure}, except an {@link Error}, which is rethrown as itself.
 */
final class BlockingRedeem {

  /** How long past a redeem's deadline to wait for the reader's own deadline answer. */
  static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private BlockingRedeem() {}

  /**
   * Redeems {@code ref} through {@code cc} on the calling thread; a claim check without a shared
   * reader (not one this library opened) is waited on without the gate.
   */
  static byte[] redeem(ClaimCheck cc, ClaimRef ref, long deadlineNanos) {
    ClaimReader reader = ReaderAccess.of(cc);
    if (reader != null && !reader.admit()) {
      throw new ClaimCheckFailure(
          Reason.UNAVAILABLE,
          claim(ref)
              + "overloaded: "
              + ClaimCheckConfig.MAX_CONCURRENT_READS
              + " redeems are already being served in this process",
          null);
    }
    try {
      CompletableFuture<byte[]> f;
      // This thread waits for the answer anyway: its own store request may run on it.
      try (InlineCalls.Scope s = InlineCalls.allowUntil(cc.ticker(), deadlineNanos)) {
        f = cc.redeem(ref, deadlineNanos);
      }
      long wait = Math.max(0, deadlineNanos - cc.ticker().read()) + GRACE_NANOS;
      try {
        return f.get(wait, TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        throw failure(ref, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        f.cancel(false);
        throw new ClaimCheckFailure(
            Reason.UNAVAILABLE, claim(ref) + "interrupted while redeeming", e);
      } catch (TimeoutException e) {
        f.cancel(false);
        throw new ClaimCheckFailure(
            Reason.UNAVAILABLE, claim(ref) + "no answer by the redeem's deadline", e);
      }
    } finally {
      if (reader != null) {
        reader.release();
      }
    }
  }

  private static ClaimCheckFailure failure(ClaimRef ref, Throwable t) {
    Throwable cause = StoreException.unwrap(t);
    if (cause instanceof Error err) {
      throw err;
    }
    if (cause instanceof ClaimCheckFailure f) {
      return f;
    }
    return new ClaimCheckFailure(Reason.UNAVAILABLE, claim(ref) + "redeem failed: " + cause, cause);
  }

  private static String claim(ClaimRef ref) {
    return "claim " + ref.tenant().value() + "/" + ref.claimId() + ": ";
  }
}
