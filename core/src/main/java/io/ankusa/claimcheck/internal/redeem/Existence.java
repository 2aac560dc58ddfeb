package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;

/**
 * Answers whether a ref's claim is held, without reading it; thread-safe (no state of its own).
 *
 * <p>The reader's cache first (bytes cached under the claim's range came from a store); else a stat
 * of the pack across every store at either layout (no byte of the claim is read; not through the
 * reader's limit: a stat carries no body). {@code false} only when every store answered "not found"
 * and a second stat agrees; anything else it cannot be sure of fails {@code UNAVAILABLE}. A {@code
 * true} says the pack is there; only a redeem verifies the claim's bytes.
 */
public final class Existence {

  private final ClaimStores stores;
  private final ClaimReader reader;
  private final Ticker ticker;
  private final Admission admission;

  /** Existence over {@code stores}, the cache of {@code reader} looked at first. */
  public Existence(ClaimStores stores, ClaimReader reader, Ticker ticker, Admission admission) {
    this.stores = stores;
    this.reader = reader;
    this.ticker = ticker;
    this.admission = admission;
  }

  /** Whether {@code ref}'s pack is held, by {@code deadlineNanos}; fails with a {@link Failure}. */
  public CompletableFuture<Boolean> exists(ClaimRef ref, long deadlineNanos) {
    Failure refused = admission.refusal(ref, 0);
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    if (reader.cached(Redeemer.keyOf(ref))) {
      return CompletableFuture.completedFuture(true);
    }
    return stat(ref, deadlineNanos)
        .handle(
            (found, error) ->
                error == null
                    ? CompletableFuture.completedFuture(true)
                    : failed(ref, error, deadlineNanos, false))
        .thenCompose(f -> f);
  }

  private CompletableFuture<Boolean> stat(ClaimRef ref, long deadline) {
    try {
      return stores
          .stat(ref.tenant().value(), ref.packId().value(), deadline)
          .thenApply(o -> Boolean.TRUE);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<Boolean> failed(
      ClaimRef ref, Throwable error, long deadline, boolean second) {
    Throwable e = StoreException.unwrap(error);
    if (e instanceof Error err) {
      return CompletableFuture.failedFuture(err);
    }
    StoreException s = StoreException.of(e);
    if (s.kind() != StoreException.Kind.NOT_FOUND) {
      return CompletableFuture.failedFuture(
          new Failure(Reason.UNAVAILABLE, Claims.claim(ref) + s.getMessage(), s));
    }
    if (second) {
      return CompletableFuture.completedFuture(false);
    }
    if (deadline - ticker.read() <= 0) {
      return CompletableFuture.failedFuture(
          new Failure(
              Reason.UNAVAILABLE,
              Claims.claim(ref) + s.getMessage() + "; no time left for the second look",
              s));
    }
    return stat(ref, deadline)
        .handle(
            (found, again) ->
                again == null
                    ? CompletableFuture.completedFuture(true)
                    : failed(ref, again, deadline, true))
        .thenCompose(f -> f);
  }
}
