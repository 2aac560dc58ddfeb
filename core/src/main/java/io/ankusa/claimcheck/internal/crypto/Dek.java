package io.ankusa.claimcheck.internal.crypto;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.subtle.AesGcmHkdfStreaming;
import com.google.crypto.tink.subtle.AesGcmJce;
import java.security.GeneralSecurityException;

/**
 * One unwrapped data key's primitives: AES-256-GCM for envelopes of AEAD id 1 (read only) and the
 * {@link Segmented} AEAD for id 2; immutable and thread-safe (each encryption or decryption opens
 * its own cipher).
 *
 * @param gcm AES-256-GCM under the key (Tink's {@code AesGcmJce})
 * @param segmented the segmented AEAD whose per-envelope keys HKDF derives from the key
 */
record Dek(Aead gcm, AesGcmHkdfStreaming segmented) {

  /** The primitives of a 32-byte key; {@link GeneralSecurityException} when it is not one. */
  static Dek of(byte[] key) throws GeneralSecurityException {
    if (key.length != 32) {
      throw new GeneralSecurityException("the data key is not an AES-256 key");
    }
    return new Dek(new AesGcmJce(key), Segmented.of(key));
  }
}
