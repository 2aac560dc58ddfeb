package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.internal.compress.Compressor;
import io.ankusa.claimcheck.internal.compress.PastReadLimitException;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.wire.Checksums;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.util.function.ToIntFunction;

/**
 * Checks a claim's stored bytes against its ref and turns checked bytes into the caller's copy;
 * immutable and thread-safe.
 *
 * <p>The check (length and CRC32C) and the decoding are apart, so a redeem computes the checksum of
 * an answer once: {@link #check} it, then {@link #decoded} it.
 */
final class Claims {

  private final int readMaxBytes;
  private final ToIntFunction<byte[]> crc32c;

  Claims(int readMaxBytes) {
    this(readMaxBytes, Checksums::crc32c);
  }

  /** Claims whose checksums {@code crc32c} computes (tests count them). */
  Claims(int readMaxBytes, ToIntFunction<byte[]> crc32c) {
    this.readMaxBytes = readMaxBytes;
    this.crc32c = crc32c;
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
   * Returns the caller's own copy of the claim from its {@link #check checked} stored bytes,
   * decompressed through a stream bounded by the ref's recorded raw length (v2) or {@code
   * claimcheck.read.max.bytes}: {@code CORRUPT} when it inflates past the raw length, {@code
   * REFUSED} past the read limit.
   */
  byte[] decoded(ClaimRef ref, byte[] stored) {
    try {
      return ref.codec() == Codec.NONE
          ? stored.clone()
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
