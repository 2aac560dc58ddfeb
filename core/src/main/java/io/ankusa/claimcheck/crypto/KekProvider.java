package io.ankusa.claimcheck.crypto;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Opens key-encryption keys (KEKs) of the id schemes it serves; implementations are thread-safe and
 * have a public no-argument constructor, listed in {@code
 * META-INF/services/io.ankusa.claimcheck.crypto.KekProvider}.
 *
 * <p>A KEK id is {@code scheme:reference} ({@code local:/etc/claimcheck/acme.key}, {@code
 * aws-kms:arn:aws:kms:...:key/...}, {@code aws-kms:alias/acme}); it is written into every envelope
 * it wraps a data key for, so a reader opens exactly the KEK a claim names. The library asks a KEK
 * for a fresh data key rarely (one per KEK for a bounded number of claims and time) and to unwrap a
 * data key once per cache lifetime, never per record. The data keys are raw AES-256 key bytes, so
 * the same KEK machinery serves the per-claim AEAD and, later, a streaming AEAD.
 */
public interface KekProvider {

  /** The KEK id schemes this provider serves, such as {@code Set.of("local")}. */
  Set<String> schemes();

  /**
   * Refuses a malformed or unusable {@code kekId} early (at configuration time) with an {@link
   * IllegalArgumentException} saying why; the default accepts any id.
   */
  default void validate(String kekId, Map<String, String> settings) {}

  /**
   * Opens the KEK {@code kekId} with {@code settings} (the {@code claimcheck.encryption.<scheme>.*}
   * keys, without that prefix); throws {@link IllegalArgumentException} for a bad id.
   */
  Kek open(String kekId, Map<String, String> settings);

  /**
   * One key-encryption key; thread-safe, never blocking the caller. Every failure is a {@link
   * KekException} of the right kind ({@code UNAVAILABLE} when in doubt).
   */
  interface Kek extends AutoCloseable {

    /** The KEK's id, as written into envelopes. */
    String id();

    /**
     * A fresh 32-byte data key, in plaintext and wrapped by this KEK under {@code context} (for AWS
     * KMS, its encryption context; the same context must be given to unwrap it).
     */
    CompletableFuture<DataKey> generate(Map<String, String> context);

    /** The plaintext of a data key this KEK wrapped under {@code context}. */
    CompletableFuture<byte[]> unwrap(byte[] wrapped, Map<String, String> context);

    /** Releases the KEK's clients; the default does nothing. */
    @Override
    default void close() {}
  }

  /**
   * A data key: its plaintext (never stored) and its wrapped form (stored with each claim).
   *
   * @param plaintext the raw key bytes
   * @param wrapped the key encrypted by its KEK
   */
  record DataKey(byte[] plaintext, byte[] wrapped) {

    /** Validates the fields. */
    public DataKey {
      Objects.requireNonNull(plaintext, "plaintext");
      Objects.requireNonNull(wrapped, "wrapped");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof DataKey d
          && Arrays.equals(plaintext, d.plaintext)
          && Arrays.equals(wrapped, d.wrapped);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(wrapped);
    }

    /** Never shows the key. */
    @Override
    public String toString() {
      return "DataKey[" + wrapped.length + " wrapped bytes]";
    }
  }

  /** A KEK operation's failure, with what it means for the claim; immutable. */
  final class KekException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What a failure means. */
    public enum Kind {
      /** The KMS could not answer, throttled, or timed out: retriable. */
      UNAVAILABLE,
      /** The key is disabled or pending deletion: retriable, an operator can undo it. */
      KEY_UNUSABLE,
      /** The key is gone for good (crypto-shredded): the claims it wrapped are unreadable. */
      KEY_GONE,
      /** This client may not use the key (access denied): final for this client. */
      DENIED,
      /** The wrapped key is not one this KEK wrapped under that context: final. */
      INVALID
    }

    private final Kind kind;

    /** A failure of {@code kind}; the message names the key. */
    public KekException(Kind kind, String message, Throwable cause) {
      super(message, cause);
      this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** Returns what the failure means. */
    public Kind kind() {
      return kind;
    }
  }
}
