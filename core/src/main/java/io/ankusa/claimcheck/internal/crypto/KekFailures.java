package io.ankusa.claimcheck.internal.crypto;

import io.ankusa.claimcheck.crypto.KekProvider.KekException;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;

/**
 * What the library answers for each way a KEK or an envelope fails: the table from a {@link
 * KekException.Kind} (or a malformed envelope) to a {@link Failure}; stateless and thread-safe.
 *
 * <p>Only what the KMS said in its own words becomes a final answer: a key gone for good is {@code
 * NOT_FOUND} (crypto-shredded), a denied one {@code REFUSED}, a data key the KEK did not wrap
 * {@code CORRUPT}; a KMS down or throttled and a key disabled or pending deletion (an operator can
 * re-enable it) are {@code UNAVAILABLE}, and so is anything unexpected.
 */
final class KekFailures {

  private KekFailures() {}

  /** The failure of using KEK {@code kekId} for {@code what} (a message prefix), from {@code e}. */
  static Failure of(String what, String kekId, Throwable e) {
    if (e instanceof Failure f) {
      return f;
    }
    if (e instanceof Error err) {
      throw err;
    }
    if (!(e instanceof KekException k)) {
      return new Failure(Reason.UNAVAILABLE, what + "KEK " + kekId + " could not be used: " + e, e);
    }
    return switch (k.kind()) {
      case UNAVAILABLE ->
          new Failure(
              Reason.UNAVAILABLE,
              what + "KMS of KEK " + kekId + " unavailable: " + k.getMessage(),
              k);
      case KEY_UNUSABLE ->
          new Failure(
              Reason.UNAVAILABLE,
              what
                  + "KEK "
                  + kekId
                  + " is disabled or pending deletion (an operator can re-enable it): "
                  + k.getMessage(),
              k);
      case KEY_GONE ->
          new Failure(
              Reason.NOT_FOUND,
              what
                  + "KEK "
                  + kekId
                  + " is gone for good (crypto-shredded): its claims can never be decrypted: "
                  + k.getMessage(),
              k);
      case DENIED ->
          new Failure(
              Reason.REFUSED,
              what + "this client may not use KEK " + kekId + ": " + k.getMessage(),
              k);
      case INVALID ->
          new Failure(
              Reason.CORRUPT,
              what + "KEK " + kekId + " did not wrap this data key: " + k.getMessage(),
              k);
    };
  }

  /** Whether {@code e} is a KMS that could not answer now: worth asking again in the deadline. */
  static boolean retriable(Throwable e) {
    return e instanceof KekException k && k.kind() == KekException.Kind.UNAVAILABLE;
  }

  /**
   * The failure of an envelope that does not parse: {@code UNAVAILABLE} (retriable) when a newer
   * writer made it, like a ref of a newer version; else {@code CORRUPT} (final after the second
   * look).
   */
  static Failure malformed(String what, Envelope.EnvelopeException e) {
    return new Failure(
        e.needsNewerReader() ? Reason.UNAVAILABLE : Reason.CORRUPT, what + e.getMessage(), e);
  }
}
