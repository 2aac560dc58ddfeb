package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.util.function.Supplier;

/**
 * The claim-check steps every Connect plug-in of this module takes on a field's bytes — whether
 * they are checked in, the check-in, and the redeem of a field that carries a ref — with failures
 * as the exceptions a worker acts on ({@link Failures}); stateless and thread-safe.
 *
 * <p>The transforms ({@link CheckIn}, {@link Redeem}) and {@link ClaimCheckConverter} take these
 * steps only here, so a record written by any one of them (or by {@code ClaimCheckSerializer},
 * which applies the same rules) is read by the others.
 */
final class FieldClaims {

  private FieldClaims() {}

  /**
   * Whether {@code bytes} are checked in: not null, and at least {@code threshold} long or,
   * whatever their size, starting with the ref magic (so no inline field ever looks like a ref).
   */
  static boolean checksIn(byte[] bytes, int threshold) {
    return bytes != null && (bytes.length >= threshold || RefFields.startsWithMagic(bytes));
  }

  /**
   * Checks {@code bytes} in (a key under a content-derived pack id) and returns the ref; a failure
   * is a {@code RetriableException} or {@code DataException} naming {@code where} (e.g. "the value
   * of a record for topic t").
   */
  static ClaimRef checkIn(ClaimCheck cc, boolean isKey, byte[] bytes, Supplier<String> where) {
    try {
      return isKey ? cc.checkInKey(bytes) : cc.checkIn(bytes);
    } catch (ClaimCheckFailure f) {
      throw Failures.toConnect(f, where.get());
    }
  }

  /**
   * The bytes a field stands for: {@code bytes} themselves unless they carry a ref ({@link
   * RefFields#carriesRef}, given whether the field is {@code marked}), else the redeemed claim
   * through core's one blocking redeem (gate, deadline {@code deadlineNanos} on the claim check's
   * clock, typed failures; an {@link Error} as itself).
   */
  static byte[] redeem(
      ClaimCheck cc,
      boolean isKey,
      boolean marked,
      byte[] bytes,
      long deadlineNanos,
      Supplier<String> where) {
    if (!RefFields.carriesRef(marked, bytes)) {
      return bytes;
    }
    try {
      ClaimRef ref = RefFields.decode(bytes, isKey);
      return cc.redeemBlocking(ref, deadlineNanos);
    } catch (ClaimCheckFailure f) {
      throw Failures.toConnect(f, where.get());
    }
  }
}
