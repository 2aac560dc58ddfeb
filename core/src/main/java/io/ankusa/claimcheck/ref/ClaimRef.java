package io.ankusa.claimcheck.ref;

import java.util.Objects;

/**
 * What a Kafka record carries instead of a checked-in payload: the tenant, the claim id, and
 * where and how the claim's stored bytes lie in its pack; immutable and thread-safe.
 *
 * <p>A ref names no store: a read searches them. {@link RefCodec} writes it in at most {@value
 * RefCodec#MAX_V1_LENGTH} bytes.
 *
 * @param version the ref format version this ref is written in, 1..{@link #CURRENT_VERSION}
 * @param tenant the claim's owner
 * @param claimId the pack and index of the claim
 * @param offset the absolute byte offset of the claim's stored bytes within its pack object: the
 *     hint that lets one ranged GET redeem the claim
 * @param length the number of stored bytes, at least 1 (empty payloads are never checked in)
 * @param checksum the CRC32C of the stored bytes
 * @param codec how the stored bytes are compressed
 */
public record ClaimRef(
    int version, Tenant tenant, ClaimId claimId, long offset, int length, int checksum,
    Codec codec) {

  /** The ref format version {@link RefCodec#encode} writes for new refs. */
  public static final int CURRENT_VERSION = 1;

  /** Validates the fields; throws {@link IllegalArgumentException} naming the bad one. */
  public ClaimRef {
    if (version < 1 || version > CURRENT_VERSION) {
      throw new IllegalArgumentException(
          "ref version " + version + " is outside 1.." + CURRENT_VERSION);
    }
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(claimId, "claimId");
    Objects.requireNonNull(codec, "codec");
    if (offset < 0) {
      throw new IllegalArgumentException("ref offset " + offset + " is negative");
    }
    if (length < 1) {
      throw new IllegalArgumentException("ref length " + length + " is not positive");
    }
    if (offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException(
          "ref offset " + offset + " + length " + length + " overflows");
    }
  }

  /** Returns a ref in the {@link #CURRENT_VERSION}. */
  public static ClaimRef of(
      Tenant tenant, ClaimId claimId, long offset, int length, int checksum, Codec codec) {
    return new ClaimRef(CURRENT_VERSION, tenant, claimId, offset, length, checksum, codec);
  }

  /** Returns the pack holding the claim. */
  public PackId packId() {
    return claimId.pack();
  }
}
