package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.internal.compress.Compressor;
import io.ankusa.claimcheck.internal.compress.PastReadLimitException;
import io.ankusa.claimcheck.internal.crypto.EarlyOpening;
import io.ankusa.claimcheck.internal.crypto.Encryption;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.wire.Checksums;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

/**
 * Checks a claim's stored bytes against its ref and turns checked bytes into the caller's copy;
 * immutable and thread-safe.
 *
 * <p>The check (length and CRC32C) and the decoding are apart, so a redeem computes the checksum of
 * an answer once: {@link #check} it, then {@link #decoded} it. Decoding takes stored bytes that are
 * the caller's to give away (its own fresh read, or its own copy of shared bytes, never an array
 * somebody else may still write or hand out): an uncompressed plaintext claim's answer is that very
 * array, so the claim is copied at most once on its way to the caller.
 */
final class Claims {

  private final int readMaxBytes;
  private final ToIntFunction<byte[]> crc32c;
  private final Encryption encryption;

  Claims(int readMaxBytes) {
    this(readMaxBytes, Checksums::crc32c);
  }

  /** Claims whose checksums {@code crc32c} computes (tests count them). */
  Claims(int readMaxBytes, ToIntFunction<byte[]> crc32c) {
    this(readMaxBytes, crc32c, Encryption.off());
  }

  /** Claims whose encrypted envelopes {@code encryption} opens. */
  Claims(int readMaxBytes, ToIntFunction<byte[]> crc32c, Encryption encryption) {
    this.readMaxBytes = readMaxBytes;
    this.crc32c = crc32c;
    this.encryption = encryption;
  }

  /** The watcher that opens {@code ref}'s envelope while it arrives, or null (not encrypted). */
  EarlyOpening early(ClaimRef ref) {
    return encryption.early(ref);
  }

  /** The refusal of {@code ref} by the encryption policy before any store request, or null. */
  Failure refusal(ClaimRef ref) {
    return encryption.refusal(ref);
  }

  /**
   * The caller's own claim from its {@link #check checked} stored bytes, which are the caller's to
   * give away (see above), by {@code deadline}: an encrypted envelope opened first ({@code CORRUPT}
   * when it does not decrypt; see {@link Encryption#open}), then {@link #decoded}. Never throws:
   * the future fails.
   */
  CompletableFuture<byte[]> decode(ClaimRef ref, byte[] stored, long deadline) {
    return decode(ref, stored, deadline, null);
  }

  /** As {@link #decode(ClaimRef, byte[], long)}, using what {@code early} (or null) opened. */
  CompletableFuture<byte[]> decode(ClaimRef ref, byte[] stored, long deadline, EarlyOpening early) {
    if (!ref.isEncrypted()) {
      try {
        return CompletableFuture.completedFuture(decoded(ref, stored));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    CompletableFuture<byte[]> plain;
    try {
      plain = encryption.open(ref, stored, deadline, early);
    } catch (RuntimeException e) {
      plain = CompletableFuture.failedFuture(e);
    }
    return plain.thenApply(p -> decrypted(ref, p));
  }

  /** The claim from an encrypted claim's decrypted (still compressed) bytes. */
  private byte[] decrypted(ClaimRef ref, byte[] plain) {
    if (ref.codec() == Codec.NONE) {
      if (plain.length != ref.rawLength()) {
        throw new Failure(
            Reason.CORRUPT,
            claim(ref) + plain.length + " bytes decrypted, " + ref.rawLength() + " expected",
            null);
      }
      return plain; // a fresh array: the caller's own copy
    }
    return inflated(ref, plain);
  }

  /** Throws {@code CORRUPT} unless {@code stored} has the ref's length and CRC32C. */
  void check(ClaimRef ref, byte[] stored) {
    try {
      Packs.checkClaim(ref, stored, crc32c);
    } catch (CorruptPackException e) {
      throw new Failure(Reason.CORRUPT, claim(ref) + e.getMessage(), e);
    }
  }

  /**
   * Returns the caller's own claim from its {@link #check checked} stored bytes (the caller's to
   * give away: an uncompressed claim is returned as that very array), decompressed through a stream
   * bounded by the ref's recorded raw length (v2) or {@code claimcheck.read.max.bytes}: {@code
   * CORRUPT} when it inflates past the raw length, {@code REFUSED} past the read limit.
   */
  byte[] decoded(ClaimRef ref, byte[] stored) {
    if (ref.isEncrypted()) {
      // Never the envelope as the claim: a path that reaches here must open it ({@link #decode}).
      throw new Failure(
          Reason.UNAVAILABLE,
          claim(ref) + "an encrypted claim on a redeem path that does not decrypt (a bug)",
          null);
    }
    return inflated(ref, stored);
  }

  /** {@code stored} (plaintext) decompressed as the ref says, or itself when uncompressed. */
  private byte[] inflated(ClaimRef ref, byte[] stored) {
    try {
      return ref.codec() == Codec.NONE
          ? stored
          : Compressor.decompress(
              ref.codec(), stored, Math.toIntExact(ref.rawLength()), readMaxBytes);
    } catch (CorruptPackException e) {
      throw new Failure(Reason.CORRUPT, claim(ref) + e.getMessage(), e);
    } catch (PastReadLimitException e) {
      throw new Failure(
          Reason.REFUSED,
          claim(ref)
              + e.getMessage()
              + "; a reader with a higher "
              + Admission.READ_MAX_BYTES
              + " can redeem it",
          e);
    }
  }

  /** The start of every message about {@code ref}: {@code "claim tenant/pack#index: "}. */
  static String claim(ClaimRef ref) {
    return "claim " + ref.tenant().value() + "/" + ref.claimId() + ": ";
  }
}
