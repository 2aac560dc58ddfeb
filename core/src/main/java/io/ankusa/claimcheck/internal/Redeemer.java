package io.ankusa.claimcheck.internal;

import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.internal.reader.ReadException;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * Redeems refs through the shared reader, giving a final answer only when a second look agrees;
 * thread-safe (it keeps no state of its own between redeems).
 *
 * <p>Invariants: the fetch function handed to the reader verifies the stored bytes against the
 * ref's length and CRC32C before it answers, so the reader only ever caches verified bytes; a bad
 * answer completes the fetch exceptionally with {@code CORRUPT}, which the reader delivers
 * unchanged and does not cache. Every answer the reader gives (cache hits included) is verified
 * again against this caller's ref. {@code CORRUPT} and {@code NOT_FOUND} are given only after a
 * second look straight at the store set (bypassing the reader's cache and coalescing) answers the
 * same; a good second look returns its bytes; any other second look is {@code UNAVAILABLE}. An
 * {@link Error} is never translated: it completes the redeem as itself.
 */
final class Redeemer {

  private final Runtimes.Runtime rt;
  private final Ticker ticker;
  private final long searchNanos;
  private final int readMaxBytes;

  Redeemer(Runtimes.Runtime rt, Ticker ticker, long searchNanos, int readMaxBytes) {
    this.rt = rt;
    this.ticker = ticker;
    this.searchNanos = searchNanos;
    this.readMaxBytes = readMaxBytes;
  }

  /** Redeems {@code ref} by {@code deadlineNanos}; the future fails with a failure or an Error. */
  CompletableFuture<byte[]> redeem(ClaimRef ref, long deadlineNanos) {
    CompletableFuture<byte[]> raw = fetch(ref, deadlineNanos);
    return raw.handle(
            (bytes, error) ->
                error == null
                    ? answered(ref, bytes, deadlineNanos)
                    : failed(ref, error, deadlineNanos))
        .thenCompose(Function.identity());
  }

  /**
   * Fetches {@code ref}'s stored bytes into the reader by {@code deadlineNanos} (verified before
   * the reader caches them) and answers nothing more: no second look, no copy. The future fails as
   * the reader's fetch did; the redeem that reads the claim judges the failure itself.
   */
  CompletableFuture<Void> warm(ClaimRef ref, long deadlineNanos) {
    return fetch(ref, deadlineNanos).thenApply(bytes -> null);
  }

  /** The key the reader fetches, caches and pins {@code ref}'s claim under: its stored range. */
  static FetchKey keyOf(ClaimRef ref) {
    return FetchKey.range(ref.tenant().value(), ref.packId().hex(), ref.offset(), ref.length());
  }

  /** The reader's fetch of {@code ref}'s range, the store search checking before it caches. */
  private CompletableFuture<byte[]> fetch(ClaimRef ref, long deadlineNanos) {
    long packId = ref.packId().value();
    try {
      return rt.reader.fetch(
          keyOf(ref),
          rt.stores.home(packId),
          // The store search has its own deadline, not this caller's: a request that outlives
          // its callers runs to the end and fills the cache, so the caller's retry finds it.
          () ->
              search(ref, ticker.read() + searchNanos)
                  .thenApply(
                      bytes -> {
                        check(ref, bytes); // before the reader caches it
                        return bytes;
                      }),
          deadlineNanos);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<byte[]> search(ClaimRef ref, long deadline) {
    return rt.stores
        .read(ref.tenant().value(), ref.packId().value(), ref.offset(), ref.length(), deadline)
        .thenApply(ClaimStores.Located::bytes);
  }

  private CompletableFuture<byte[]> answered(ClaimRef ref, byte[] bytes, long deadline) {
    try {
      check(ref, bytes);
    } catch (ClaimCheckFailure corrupt) {
      // Bytes the reader holds for this range that are not this ref's (another ref naming the
      // same range, or a reader that cached before verifying): ask the stores themselves.
      return secondLook(ref, Reason.CORRUPT, corrupt.getMessage(), deadline);
    }
    return CompletableFuture.completedFuture(Engine.verified(ref, bytes, readMaxBytes));
  }

  private CompletableFuture<byte[]> failed(ClaimRef ref, Throwable error, long deadline) {
    Throwable e = unwrap(error);
    if (e instanceof Error err) {
      return CompletableFuture.failedFuture(err);
    }
    if (e instanceof ClaimCheckFailure f) {
      return f.reason() == Reason.CORRUPT
          ? secondLook(ref, Reason.CORRUPT, f.getMessage(), deadline)
          : CompletableFuture.failedFuture(f);
    }
    if (e instanceof ReadException r) {
      return CompletableFuture.failedFuture(
          new ClaimCheckFailure(
              Reason.UNAVAILABLE,
              claim(ref) + "read " + r.reason().name().toLowerCase(Locale.ROOT),
              r));
    }
    StoreException s = StoreException.of(e);
    if (s.kind() == StoreException.Kind.NOT_FOUND) {
      return secondLook(ref, Reason.NOT_FOUND, s.getMessage(), deadline);
    }
    return CompletableFuture.failedFuture(
        new ClaimCheckFailure(Reason.UNAVAILABLE, claim(ref) + s.getMessage(), s));
  }

  /**
   * Searches the stores once more for {@code ref}, straight (no cache, no coalescing), after the
   * first look answered {@code first}: only the same answer again is final.
   */
  private CompletableFuture<byte[]> secondLook(
      ClaimRef ref, Reason first, String firstMessage, long deadline) {
    if (deadline - ticker.read() <= 0) {
      return CompletableFuture.failedFuture(
          new ClaimCheckFailure(
              Reason.UNAVAILABLE,
              claim(ref)
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
    return again.handle(
        (bytes, error) -> {
          if (error != null) {
            Throwable e = unwrap(error);
            if (e instanceof Error err) {
              throw err;
            }
            StoreException s = StoreException.of(e);
            if (first == Reason.NOT_FOUND && s.kind() == StoreException.Kind.NOT_FOUND) {
              throw new ClaimCheckFailure(
                  Reason.NOT_FOUND, claim(ref) + s.getMessage() + " (asked twice)", s);
            }
            throw new ClaimCheckFailure(
                Reason.UNAVAILABLE,
                claim(ref)
                    + "the first look answered "
                    + firstMessage
                    + "; the second look: "
                    + s.getMessage(),
                s);
          }
          try {
            check(ref, bytes);
          } catch (ClaimCheckFailure mismatch) {
            if (first == Reason.CORRUPT) {
              throw new ClaimCheckFailure(
                  Reason.CORRUPT,
                  claim(ref)
                      + mismatch.getCause().getMessage()
                      + " (read twice, the second time past the cache)",
                  mismatch.getCause());
            }
            throw new ClaimCheckFailure(
                Reason.UNAVAILABLE,
                claim(ref)
                    + "the stores answered "
                    + firstMessage
                    + ", then bytes that do not match: answers disagree",
                mismatch);
          }
          return Engine.verified(ref, bytes, readMaxBytes);
        });
  }

  /** Throws {@code CORRUPT} unless {@code stored} has the ref's length and CRC32C. */
  static void check(ClaimRef ref, byte[] stored) {
    try {
      Packs.checkClaim(ref, stored);
    } catch (CorruptPackException e) {
      throw new ClaimCheckFailure(Reason.CORRUPT, claim(ref) + e.getMessage(), e);
    }
  }

  /** The failure behind {@code t}, under completion and execution wrappers. */
  static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  static String claim(ClaimRef ref) {
    return "claim " + ref.tenant().value() + "/" + ref.claimId() + ": ";
  }
}
