package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.internal.reader.ReadException;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Redeems a byte range of a claim; thread-safe (no state of its own between redeems).
 *
 * <p>A range of an uncompressed claim ({@link Codec#NONE}) is one ranged read of just those bytes
 * of the pack through the shared reader (coalescing, the AIMD limit, the deadline and the cache
 * apply, keyed by the range read), and is <em>not verified</em>: the checksum covers the whole
 * claim, so a part of it cannot be checked (as an S3 ranged GET). The read limit is judged against
 * the range. A range that is the whole claim, and any range of a compressed claim, is the {@link
 * Redeemer}'s verified redeem of the whole claim, cut; so is any range of an encrypted claim (its
 * AEAD tag covers the whole claim). {@code NOT_FOUND} only when a second look straight at the
 * stores agrees; an answer of the wrong length is {@code UNAVAILABLE}.
 */
public final class RangedRedeemer {

  private final ClaimStores stores;
  private final ClaimReader reader;
  private final Ticker ticker;
  private final long searchNanos;
  private final Admission admission;
  private final Redeemer whole;

  /** Ranges over {@code stores} through {@code reader}; whole claims through {@code whole}. */
  public RangedRedeemer(
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      long searchNanos,
      Admission admission,
      Redeemer whole) {
    this.stores = stores;
    this.reader = reader;
    this.ticker = ticker;
    this.searchNanos = searchNanos;
    this.admission = admission;
    this.whole = whole;
  }

  /**
   * Redeems {@code length} bytes of {@code ref}'s claim from byte {@code offset} of it by {@code
   * deadlineNanos}: the caller's own copy; the future fails with a {@link Failure} or an Error.
   *
   * @throws IllegalArgumentException if the range is empty or lies outside the claim
   */
  public CompletableFuture<byte[]> redeemRange(
      ClaimRef ref, long offset, long length, long deadlineNanos) {
    long size =
        ref.isEncrypted() || (ref.codec() != Codec.NONE && ref.knowsRawLength())
            ? ref.rawLength()
            : ref.length();
    boolean known = ref.codec() == Codec.NONE || ref.knowsRawLength();
    if (offset < 0
        || length <= 0
        || length > Integer.MAX_VALUE
        || (known && offset + length > size)) {
      throw new IllegalArgumentException(
          "range " + offset + "+" + length + " lies outside the claim of " + size + " bytes");
    }
    // An encrypted claim's range cannot be decrypted alone (the tag covers the whole claim): it is
    // the whole claim redeemed, verified and decrypted, then cut.
    if (ref.codec() != Codec.NONE || ref.isEncrypted() || (offset == 0 && length == ref.length())) {
      return whole.redeem(ref, deadlineNanos).thenApply(b -> cut(ref, b, offset, length));
    }
    Failure refused = admission.refusal(ref, length);
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    long first = ref.offset() + offset;
    int n = (int) length;
    CompletableFuture<byte[]> raw;
    try {
      raw =
          reader.fetch(
              partKey(ref, first, n),
              stores.home(ref.packId().value()),
              () -> search(ref, first, n, ticker.read() + searchNanos),
              deadlineNanos);
    } catch (RuntimeException e) {
      raw = CompletableFuture.failedFuture(e);
    }
    return raw.handle(
            (bytes, error) ->
                error == null
                    ? CompletableFuture.completedFuture(bytes.clone())
                    : failed(ref, first, n, error, deadlineNanos))
        .thenCompose(Function.identity());
  }

  /**
   * The key a part read is coalesced and cached under: never a whole claim's key ({@link
   * Redeemer#keyOf}), so an unverified part never meets a whole claim's entry, which the redeem
   * that fetched it may have handed to its application as its own (see {@link Redeemer}); no pack
   * id in hex has a {@code ':'}.
   */
  static FetchKey partKey(ClaimRef ref, long first, int n) {
    return FetchKey.range(ref.tenant().value(), ref.packId().hex() + ":part", first, n);
  }

  private static byte[] cut(ClaimRef ref, byte[] b, long offset, long length) {
    if (offset + length > b.length) { // a v1 compressed ref does not record the raw length
      throw new IllegalArgumentException(
          Claims.claim(ref)
              + "range "
              + offset
              + "+"
              + length
              + " past its "
              + b.length
              + " bytes");
    }
    return Arrays.copyOfRange(b, (int) offset, (int) (offset + length));
  }

  /** The store set's read of the range, refusing an answer of the wrong length (not cached). */
  private CompletableFuture<byte[]> search(ClaimRef ref, long first, int n, long deadline) {
    return stores
        .read(ref.tenant().value(), ref.packId().value(), first, n, deadline)
        .thenApply(
            located -> {
              if (located.bytes().length != n) {
                throw new StoreException(
                    StoreException.Kind.UNAVAILABLE,
                    located.key() + " answered " + located.bytes().length + " of " + n + " bytes");
              }
              return located.bytes();
            });
  }

  private CompletableFuture<byte[]> failed(
      ClaimRef ref, long first, int n, Throwable error, long deadline) {
    Throwable e = StoreException.unwrap(error);
    if (e instanceof Error err) {
      return CompletableFuture.failedFuture(err);
    }
    if (e instanceof Failure f) {
      return CompletableFuture.failedFuture(f);
    }
    if (e instanceof ReadException r) {
      return CompletableFuture.failedFuture(
          new Failure(
              Reason.UNAVAILABLE,
              Claims.claim(ref) + "read " + r.reason().name().toLowerCase(Locale.ROOT),
              r));
    }
    StoreException s = StoreException.of(e);
    if (s.kind() != StoreException.Kind.NOT_FOUND) {
      return CompletableFuture.failedFuture(
          new Failure(Reason.UNAVAILABLE, Claims.claim(ref) + s.getMessage(), s));
    }
    if (deadline - ticker.read() <= 0) {
      return CompletableFuture.failedFuture(
          new Failure(
              Reason.UNAVAILABLE,
              Claims.claim(ref) + s.getMessage() + "; no time left for the second look",
              s));
    }
    CompletableFuture<byte[]> again;
    try {
      again = search(ref, first, n, deadline);
    } catch (RuntimeException x) {
      again = CompletableFuture.failedFuture(x);
    }
    return again.handle(
        (bytes, t) -> {
          if (t == null) {
            return bytes.clone();
          }
          Throwable c = StoreException.unwrap(t);
          if (c instanceof Error err) {
            throw err;
          }
          StoreException s2 = StoreException.of(c);
          throw new Failure(
              s2.kind() == StoreException.Kind.NOT_FOUND ? Reason.NOT_FOUND : Reason.UNAVAILABLE,
              Claims.claim(ref)
                  + s2.getMessage()
                  + (s2.kind() == StoreException.Kind.NOT_FOUND ? " (asked twice)" : ""),
              s2);
        });
  }
}
