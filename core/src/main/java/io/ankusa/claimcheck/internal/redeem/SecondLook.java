package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;

/**
 * The store search behind a redeem, and the second look straight at the stores (no cache, no
 * coalescing) that a final answer needs; immutable and thread-safe. Only the same answer twice is
 * final: {@code NOT_FOUND} twice, or bytes that fail the ref's check twice ({@code CORRUPT}); good
 * bytes the second time are the answer; anything else is {@code UNAVAILABLE}.
 */
final class SecondLook {

  private final ClaimStores stores;
  private final Ticker ticker;
  private final Claims claims;

  SecondLook(ClaimStores stores, Ticker ticker, Claims claims) {
    this.stores = stores;
    this.ticker = ticker;
    this.claims = claims;
  }

  /** The store set's read of {@code ref}'s range by {@code deadline}. */
  CompletableFuture<byte[]> search(ClaimRef ref, long deadline) {
    return stores
        .read(
            ref.tenant().value(),
            ref.packId().value(),
            ref.offset(),
            Math.toIntExact(ref.length()),
            deadline)
        .thenApply(ClaimStores.Located::bytes);
  }

  /**
   * Searches the stores once more for {@code ref}, straight (no cache, no coalescing), after the
   * first look answered {@code first}: only the same answer again is final.
   */
  CompletableFuture<byte[]> after(ClaimRef ref, Reason first, String firstMessage, long deadline) {
    if (deadline - ticker.read() <= 0) {
      return CompletableFuture.failedFuture(
          new Failure(
              Reason.UNAVAILABLE,
              Claims.claim(ref)
                  + "the first look answered "
                  + firstMessage
                  + "; the deadline passed before the second"
                  + " look a final answer needs",
              null));
    }
    CompletableFuture<byte[]> again;
    try {
      again = search(ref, deadline);
    } catch (RuntimeException e) {
      again = CompletableFuture.failedFuture(e);
    }
    return again
        .handle(
            (bytes, error) -> {
              if (error != null) {
                Throwable e = StoreException.unwrap(error);
                if (e instanceof Error err) {
                  throw err;
                }
                StoreException s = StoreException.of(e);
                if (first == Reason.NOT_FOUND && s.kind() == StoreException.Kind.NOT_FOUND) {
                  throw new Failure(
                      Reason.NOT_FOUND, Claims.claim(ref) + s.getMessage() + " (asked twice)", s);
                }
                throw new Failure(
                    Reason.UNAVAILABLE,
                    Claims.claim(ref)
                        + "the first look answered "
                        + firstMessage
                        + "; the second look: "
                        + s.getMessage(),
                    s);
              }
              try {
                claims.check(ref, bytes);
              } catch (Failure mismatch) {
                if (first == Reason.CORRUPT) {
                  throw new Failure(
                      Reason.CORRUPT,
                      Claims.claim(ref)
                          + mismatch.getCause().getMessage()
                          + " (read twice, the second time past the cache)",
                      mismatch.getCause());
                }
                throw new Failure(
                    Reason.UNAVAILABLE,
                    Claims.claim(ref)
                        + "the stores answered "
                        + firstMessage
                        + ", then bytes that do not match: answers disagree",
                    mismatch);
              }
              // A read straight from the stores, in no cache and no flight: this redeem's own.
              return claims
                  .decode(ref, bytes, deadline)
                  .exceptionally(
                      x -> {
                        Throwable c = StoreException.unwrap(x);
                        if (c instanceof Failure f && f.reason() == Reason.CORRUPT) {
                          throw first == Reason.CORRUPT
                              ? new Failure(
                                  Reason.CORRUPT,
                                  f.detail() + " (read twice, the second time past the cache)",
                                  f.getCause())
                              : new Failure(
                                  Reason.UNAVAILABLE,
                                  Claims.claim(ref)
                                      + "the stores answered "
                                      + firstMessage
                                      + ", then "
                                      + f.detail()
                                      + ": answers disagree",
                                  f);
                        }
                        if (c instanceof RuntimeException r) {
                          throw r;
                        }
                        if (c instanceof Error err) {
                          throw err;
                        }
                        throw new IllegalStateException(c);
                      });
            })
        .thenCompose(java.util.function.Function.identity());
  }
}
