package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;

/**
 * Answers whether a ref's claim is held, without reading it; thread-safe (no state of its own).
 *
 * <p>The reader's cache first (bytes cached under the claim's range came from a store); else a stat
 * of the pack across every store at either layout (no byte of the claim is read), run through the
 * reader like a redeem's reads: charged to the pack's home store under its AIMD limit (queued, or
 * shed {@code UNAVAILABLE}, past it), concurrent stats of one pack coalesced into one, and a found
 * pack cached under a key of its own. {@code false} only when every store answered "not found" and
 * a second stat, straight at the stores, agrees; anything else it cannot be sure of fails {@code
 * UNAVAILABLE}. A {@code true} says the pack is there; only a redeem verifies the claim's bytes.
 */
public final class Existence {

  private final ClaimStores stores;
  private final ClaimReader reader;
  private final Ticker ticker;
  private final Admission admission;
  private final long searchNanos;

  /** What the reader caches for a pack a stat found: a marker, no claim byte. */
  private static final byte[] FOUND = {1};

  /**
   * Existence over {@code stores}, the cache of {@code reader} looked at first and its limit taken
   * by each stat; a stat runs up to {@code searchNanos} (as a redeem's store search does), whatever
   * its callers' deadlines.
   */
  public Existence(
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      long searchNanos,
      Admission admission) {
    this.stores = stores;
    this.reader = reader;
    this.ticker = ticker;
    this.searchNanos = searchNanos;
    this.admission = admission;
  }

  /**
   * The key the reader coalesces and caches {@code ref}'s pack stat under: no claim's range, since
   * no pack id in hex has a {@code ':'}.
   */
  static FetchKey statKey(ClaimRef ref) {
    return FetchKey.range(ref.tenant().value(), ref.packId().hex() + ":stat", 0, 1);
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
    return limitedStat(ref, deadlineNanos)
        .handle(
            (found, error) ->
                error == null
                    ? CompletableFuture.completedFuture(true)
                    : failed(ref, error, deadlineNanos, false))
        .thenCompose(f -> f);
  }

  /** The first stat: through the reader, under the home store's limit, coalesced, cached. */
  private CompletableFuture<Boolean> limitedStat(ClaimRef ref, long deadline) {
    long packId = ref.packId().value();
    try {
      return reader
          .fetch(
              statKey(ref),
              stores.home(packId),
              () ->
                  stores
                      .stat(ref.tenant().value(), packId, ticker.read() + searchNanos)
                      .thenApply(o -> FOUND),
              deadline)
          .thenApply(b -> Boolean.TRUE);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The second look: straight at the stores, as a redeem's second look reads. */
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
