package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.crypto.Envelope;
import io.ankusa.claimcheck.internal.failure.ByteLimits;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * Which refs this reader may redeem at all, judged before any store request; immutable and
 * thread-safe. The one place the tenant and size refusals are written: a redeem and a prefetch's
 * fetch both ask it.
 */
public final class Admission {

  static final String READ_MAX_BYTES = ClaimCheckConfig.READ_MAX_BYTES;

  private final Set<String> allowed;
  private final int readMaxBytes;

  /** Admits refs of {@code tenantsAllowed} (every tenant when empty) up to {@code readMaxBytes}. */
  public Admission(Collection<String> tenantsAllowed, int readMaxBytes) {
    this.allowed = Collections.unmodifiableSet(new HashSet<>(tenantsAllowed));
    this.readMaxBytes = readMaxBytes;
  }

  /** Whether refs of {@code tenant} may be redeemed ({@code claimcheck.tenants.allowed}). */
  public boolean allows(String tenant) {
    return allowed.isEmpty() || allowed.contains(tenant);
  }

  int readMaxBytes() {
    return readMaxBytes;
  }

  /**
   * The refusal of {@code ref}, or null: {@code REFUSED} when its tenant is not allowed, or its
   * stored or raw length passes {@code claimcheck.read.max.bytes}.
   */
  Failure refusal(ClaimRef ref) {
    // An encrypted claim's envelope adds a header, nonces and tags to what the writer judged
    // against its limit: judged without them, what was written is never refused here.
    long stored = ref.isEncrypted() ? Envelope.plainLowerBound(ref.length()) : ref.length();
    return refusal(ref, ByteLimits.limitedSize(stored, ref.rawLength()));
  }

  /**
   * The refusal of {@code size} bytes of {@code ref} read (a range of an uncompressed claim), or
   * null: as {@link #refusal(ClaimRef)}, the read limit judged against {@code size}.
   */
  Failure refusal(ClaimRef ref, long size) {
    String t = ref.tenant().value();
    if (!allows(t)) {
      return new Failure(
          Reason.REFUSED,
          "claim "
              + describe(ref)
              + ": tenant "
              + t
              + " is not in "
              + ClaimCheckConfig.TENANTS_ALLOWED,
          null);
    }
    if (size <= readMaxBytes) {
      return null;
    }
    return new Failure(
        Reason.REFUSED,
        "claim "
            + describe(ref)
            + " of "
            + size
            + " bytes exceeds "
            + READ_MAX_BYTES
            + " ("
            + readMaxBytes
            + "): not fetched",
        null);
  }

  private static String describe(ClaimRef ref) {
    return ref.tenant().value() + "/" + ref.claimId();
  }
}
