package io.ankusa.claimcheck.internal;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.util.concurrent.CompletableFuture;

/**
 * A claim check that can show the process-wide reader it redeems through (its request gate, cache
 * and stats), for this library's own Kafka surfaces; implementations are thread-safe. Not API.
 */
public interface ReaderAccess {

  /** The shared reader. */
  ClaimReader reader();

  /**
   * Fetches {@code ref}'s stored bytes into the shared reader by {@code deadlineNanos}, as a redeem
   * would (verified against the ref before the reader caches them), but makes no copy for a caller:
   * the future completes when the fetch ended (exceptionally when it failed; the redeem that reads
   * the claim reports the failure itself). For prefetching; never blocks. The default redeems and
   * drops the copy.
   */
  default CompletableFuture<?> warm(ClaimRef ref, long deadlineNanos) {
    if (this instanceof ClaimCheck cc) {
      return cc.redeem(ref, deadlineNanos);
    }
    return CompletableFuture.failedFuture(new UnsupportedOperationException("not a claim check"));
  }

  /** Returns {@code cc}'s shared reader, or null when {@code cc} does not expose one. */
  static ClaimReader of(ClaimCheck cc) {
    return cc instanceof ReaderAccess a ? a.reader() : null;
  }
}
