package io.ankusa.claimcheck.internal.crypto;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.security.GeneralSecurityException;

/**
 * Opens a whole encrypted claim's envelope under its unwrapped data key, bound to the claim its ref
 * names ({@link Binding}); stateless and thread-safe.
 */
final class Decryption {

  private Decryption() {}

  /**
   * The plaintext (compressed) bytes of {@code ref}'s claim, whose stored bytes {@code stored}
   * parsed as {@code env}; a {@code CORRUPT} {@link Failure} (prefixed {@code what}) when they do
   * not decrypt as that claim.
   */
  static byte[] open(String what, Dek dek, Envelope env, ClaimRef ref, byte[] stored) {
    try {
      if (env.aead() == Envelope.SEGMENTED) {
        byte[] ad =
            ref.isStreamed()
                ? Binding.stream(env.header(), ref)
                : Binding.of(
                    env.header(),
                    ref.tenant().value(),
                    ref.packId().value(),
                    ref.claimId().index(),
                    (int) Segmented.plainLength(stored.length - env.headerLength()),
                    ref.codec().id());
        return Segmented.open(dek.segmented(), ad, stored, env.headerLength());
      }
      if (ref.isStreamed()) {
        throw new GeneralSecurityException("a streamed claim's envelope is always segmented");
      }
      int plainLength = stored.length - env.headerLength() - Envelope.AEAD_OVERHEAD;
      byte[] ad =
          Binding.of(
              env.header(),
              ref.tenant().value(),
              ref.packId().value(),
              ref.claimId().index(),
              plainLength,
              ref.codec().id());
      byte[] out = new byte[stored.length - env.headerLength()];
      System.arraycopy(stored, env.headerLength(), out, 0, out.length);
      return dek.gcm().decrypt(out, ad);
    } catch (GeneralSecurityException e) {
      throw new Failure(
          Reason.CORRUPT,
          what
              + "the envelope does not decrypt under its data key (KEK "
              + env.kekId()
              + "): tampered, truncated, or copied from another tenant, pack or claim",
          e);
    }
  }
}
