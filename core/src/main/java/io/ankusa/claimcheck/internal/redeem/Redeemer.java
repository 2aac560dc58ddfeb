package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.internal.crypto.EarlyOpening;
import io.ankusa.claimcheck.internal.crypto.Encryption;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.internal.reader.ReadException;
import io.ankusa.claimcheck.internal.wire.Checksums;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.InlineArrivals;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Redeems refs through the shared reader, giving a final answer only when a second look agrees;
 * thread-safe (it keeps no state of its own between redeems).
 *
 * <p>Invariants: a ref {@link Admission} refuses is never fetched. The fetch function handed to the
 * reader verifies the stored bytes against the ref's length and CRC32C before it answers, so the
 * reader only ever caches verified bytes; a bad answer completes the fetch exceptionally with
 * {@code CORRUPT}, which the reader delivers unchanged and does not cache. Every answer the reader
 * gives (cache hits included) is verified against this caller's ref, once, and then decoded:
 *
 * <ul>
 *   <li>The very array this redeem's own fetch function verified (it led the flight) counts as
 *       verified and is this redeem's to give away: an uncompressed plaintext claim is returned as
 *       that array, not copied, though the cache keeps it too (see {@link
 *       io.ankusa.claimcheck.internal.cache.ClaimCache}: the application may write into it).
 *   <li>Any other array (a hit, a flight another caller led) is copied first and then the copy is
 *       checked and decoded, so bytes an application changes — before or during the copy — never
 *       pass: a copy that fails its check is a miss, not a verdict; the entry is evicted (if it
 *       still holds that array) and the claim fetched once more through the reader. A second
 *       failing answer goes to the second look (below), which reads the stores past the cache.
 * </ul>
 *
 * <p>{@code CORRUPT} and {@code NOT_FOUND} are given only after a second look straight at the store
 * set (bypassing the reader's cache and coalescing) answers the same; a good second look returns
 * its bytes; any other second look is {@code UNAVAILABLE}. An {@link Error} is never translated: it
 * completes the redeem as itself. Failures are {@link Failure}s.
 */
public final class Redeemer {

  private final ClaimStores stores;
  private final ClaimReader reader;
  private final Ticker ticker;
  private final long searchNanos;
  private final Admission admission;
  private final Claims claims;
  private final SecondLook secondLook;

  /**
   * A redeemer over {@code stores} through {@code reader}; a store search started for a fetch has
   * {@code searchNanos}; refs are admitted by {@code admission}.
   */
  public Redeemer(
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      long searchNanos,
      Admission admission) {
    this(stores, reader, ticker, searchNanos, admission, new Claims(admission.readMaxBytes()));
  }

  /**
   * As {@link #Redeemer(ClaimStores, ClaimReader, Ticker, long, Admission)}, encrypted claims
   * opened by {@code encryption}.
   */
  public Redeemer(
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      long searchNanos,
      Admission admission,
      Encryption encryption) {
    this(
        stores,
        reader,
        ticker,
        searchNanos,
        admission,
        new Claims(admission.readMaxBytes(), Checksums::crc32c, encryption));
  }

  Redeemer(
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      long searchNanos,
      Admission admission,
      Claims claims) {
    this.stores = stores;
    this.reader = reader;
    this.ticker = ticker;
    this.searchNanos = searchNanos;
    this.admission = admission;
    this.claims = claims;
    this.secondLook = new SecondLook(stores, ticker, claims);
  }

  /** Whether refs of {@code tenant} may be redeemed here. */
  public boolean allows(String tenant) {
    return admission.allows(tenant);
  }

  /**
   * Redeems {@code ref} by {@code deadlineNanos}: the caller's own copy of the claim; the future
   * fails with a {@link Failure} or an Error.
   */
  public CompletableFuture<byte[]> redeem(ClaimRef ref, long deadlineNanos) {
    Failure refused = refusal(ref);
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    return redeemed(ref, deadlineNanos, true);
  }

  /** One look through the reader; {@code mayLookAgain}: a changed copy is a miss, fetched again. */
  private CompletableFuture<byte[]> redeemed(
      ClaimRef ref, long deadlineNanos, boolean mayLookAgain) {
    Verified own = new Verified();
    // An encrypted claim read on this thread is decrypted while it arrives (EarlyOpening).
    EarlyOpening early = claims.early(ref);
    CompletableFuture<byte[]> raw;
    try (InlineCalls.Scope watching = early == null ? null : InlineArrivals.watch(early)) {
      raw = fetch(ref, deadlineNanos, own);
    }
    return raw.handle(
            (bytes, error) ->
                error == null
                    ? answered(ref, bytes, bytes == own.bytes, deadlineNanos, mayLookAgain, early)
                    : failed(ref, error, deadlineNanos))
        .thenCompose(Function.identity());
  }

  /**
   * Fetches {@code ref}'s stored bytes into the reader by {@code deadlineNanos} (verified before
   * the reader caches them) after the same refusals as {@link #redeem}, and answers nothing more:
   * no second look, no copy (a prefetch's copy was dropped unread). The future fails as the
   * reader's fetch did; the redeem that reads the claim judges the failure itself.
   */
  public CompletableFuture<Void> warm(ClaimRef ref, long deadlineNanos) {
    Failure refused = refusal(ref);
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    return fetch(ref, deadlineNanos, new Verified()).thenApply(bytes -> null);
  }

  private Failure refusal(ClaimRef ref) {
    Failure refused = admission.refusal(ref);
    return refused != null ? refused : claims.refusal(ref);
  }

  /** The key the reader fetches, caches and pins {@code ref}'s claim under: its stored range. */
  public static FetchKey keyOf(ClaimRef ref) {
    return FetchKey.range(
        ref.tenant().value(), ref.packId().hex(), ref.offset(), Math.toIntExact(ref.length()));
  }

  /**
   * The array a redeem's own fetch function last checked against that redeem's ref: nobody but this
   * redeem may write into it or hand it on, so it needs no second check and no copy.
   */
  private static final class Verified {
    volatile byte[] bytes;
  }

  /**
   * The reader's fetch of {@code ref}'s range, the store search checking before it caches and
   * noting the checked array in {@code own}.
   */
  private CompletableFuture<byte[]> fetch(ClaimRef ref, long deadlineNanos, Verified own) {
    long packId = ref.packId().value();
    try {
      return reader.fetch(
          keyOf(ref),
          stores.home(packId),
          // The store search has its own deadline, not this caller's: a request that outlives
          // its callers runs to the end and fills the cache, so the caller's retry finds it.
          () ->
              secondLook
                  .search(ref, ticker.read() + searchNanos)
                  .thenApply(
                      bytes -> {
                        claims.check(ref, bytes); // before the reader caches it
                        own.bytes = bytes;
                        return bytes;
                      }),
          deadlineNanos);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<byte[]> answered(
      ClaimRef ref,
      byte[] shared,
      boolean own,
      long deadline,
      boolean mayLookAgain,
      EarlyOpening early) {
    byte[] bytes = shared;
    if (!own) {
      // Copy first, then verify the copy: an application writing into the array the flight's
      // leader was given cannot change the bytes after they passed.
      bytes = shared.clone();
      try {
        claims.check(ref, bytes);
      } catch (Failure mismatch) {
        // Changed since it was verified, or another ref naming the same range with other bytes:
        // drop exactly that entry and fetch through the reader again; a second mismatch asks the
        // stores themselves.
        reader.evict(keyOf(ref), shared);
        return mayLookAgain
            ? redeemed(ref, deadline, false)
            : secondLook.after(ref, Reason.CORRUPT, mismatch.getMessage(), deadline);
      }
    }
    return claims
        .decode(ref, bytes, deadline, own ? early : null)
        .handle(
            (claim, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(claim);
              }
              Throwable e = StoreException.unwrap(error);
              if (e instanceof Failure f && f.reason() == Reason.CORRUPT) {
                // An envelope that does not decrypt: as bytes that fail their check, final only
                // when a second look straight at the stores reads the same.
                return secondLook.after(ref, Reason.CORRUPT, f.getMessage(), deadline);
              }
              return CompletableFuture.<byte[]>failedFuture(e);
            })
        .thenCompose(Function.identity());
  }

  private CompletableFuture<byte[]> failed(ClaimRef ref, Throwable error, long deadline) {
    Throwable e = StoreException.unwrap(error);
    if (e instanceof Error err) {
      return CompletableFuture.failedFuture(err);
    }
    if (e instanceof Failure f) {
      return f.reason() == Reason.CORRUPT
          ? secondLook.after(ref, Reason.CORRUPT, f.getMessage(), deadline)
          : CompletableFuture.failedFuture(f);
    }
    if (e instanceof ReadException r) {
      return CompletableFuture.failedFuture(
          new Failure(
              Reason.UNAVAILABLE,
              Claims.claim(ref) + "read " + r.reason().name().toLowerCase(Locale.ROOT),
              r));
    }
    StoreException s = StoreException.of(e);
    if (s.kind() == StoreException.Kind.NOT_FOUND) {
      return secondLook.after(ref, Reason.NOT_FOUND, s.getMessage(), deadline);
    }
    return CompletableFuture.failedFuture(
        new Failure(Reason.UNAVAILABLE, Claims.claim(ref) + s.getMessage(), s));
  }
}
