package io.ankusa.claimcheck.internal.stream;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * The verdict on a streamed claim whose end did not verify: its stored bytes read once more,
 * straight from the store that served them (no reader, no cache), chunk by chunk, and checksummed;
 * immutable, one per failed end.
 *
 * <p>Only the same answer twice is final: stored bytes that fail the ref's CRC32C twice are {@code
 * CORRUPT}; stored bytes that verify but do not decode (a first look that verified) are {@code
 * CORRUPT} when the second read verifies too. Any other second look — bytes that verify after a
 * first look that did not (the answers disagree), a read that fails — is {@code UNAVAILABLE}. The
 * future always fails: with the verdict.
 */
final class EndCheck {

  private final ClaimRef ref;
  private final ClaimStores stores;
  private final ClaimStores.Located where;
  private final int chunkBytes;
  private final long chunkNanos;
  private final Ticker ticker;

  EndCheck(
      ClaimRef ref,
      ClaimStores stores,
      ClaimStores.Located where,
      int chunkBytes,
      long chunkNanos,
      Ticker ticker) {
    this.ref = ref;
    this.stores = stores;
    this.where = where;
    this.chunkBytes = chunkBytes;
    this.chunkNanos = chunkNanos;
    this.ticker = ticker;
  }

  /** Fails with the verdict; {@code firstVerified}: whether the first read's CRC32C matched. */
  CompletableFuture<Void> judge(boolean firstVerified, String firstLook) {
    String claim = "claim " + ref.tenant().value() + "/" + ref.claimId() + ": ";
    if (where == null) {
      return CompletableFuture.failedFuture(
          new Failure(Reason.UNAVAILABLE, claim + firstLook + "; nothing to look at again", null));
    }
    return checksum(new CRC32C(), 0)
        .handle(
            (crc, e) -> {
              if (e != null) {
                Throwable t = StoreException.unwrap(e);
                if (t instanceof Error err) {
                  throw err;
                }
                throw new Failure(
                    Reason.UNAVAILABLE,
                    claim + firstLook + "; the second look failed: " + t.getMessage(),
                    t);
              }
              boolean again = crc == ref.checksum();
              if (!firstVerified && !again) {
                throw new Failure(
                    Reason.CORRUPT,
                    claim + firstLook + " (read twice, the second time past the cache)",
                    null);
              }
              if (firstVerified && again) {
                throw new Failure(
                    Reason.CORRUPT,
                    claim + "its stored bytes verify but do not decode: " + firstLook,
                    null);
              }
              throw new Failure(
                  Reason.UNAVAILABLE,
                  claim + firstLook + "; read again, the stored bytes differ: answers disagree",
                  null);
            });
  }

  /** The CRC32C of the stored bytes from {@code at} on, read in order, one chunk at a time. */
  private CompletableFuture<Integer> checksum(CRC32C crc, long at) {
    if (at == ref.length()) {
      return CompletableFuture.completedFuture((int) crc.getValue());
    }
    int n = (int) Math.min(chunkBytes, ref.length() - at);
    return stores
        .getRange(where.store(), where.key(), ref.offset() + at, n, ticker.read() + chunkNanos)
        .thenComposeAsync(
            bytes -> {
              if (bytes.length != n) {
                throw new StoreException(
                    StoreException.Kind.UNAVAILABLE,
                    where.key() + " answered " + bytes.length + " of " + n + " bytes");
              }
              crc.update(bytes);
              return checksum(crc, at + n);
            });
  }
}
