package io.ankusa.claimcheck.internal.pack;

import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.Codec;
import java.util.Objects;

/**
 * One claim in a pack's index; immutable and thread-safe.
 *
 * @param index the claim's index within the pack, 0..{@value ClaimId#MAX_INDEX}
 * @param offset the absolute offset of the claim's stored bytes within the pack object
 * @param length the number of stored bytes, at least 1
 * @param checksum the CRC32C of the stored bytes
 * @param codec how the stored bytes are compressed
 */
public record PackEntry(int index, long offset, int length, int checksum, Codec codec) {

  /** Validates the fields; throws {@link IllegalArgumentException} naming the bad one. */
  public PackEntry {
    if (index < 0 || index > ClaimId.MAX_INDEX) {
      throw new IllegalArgumentException(
          "entry index " + index + " is outside 0.." + ClaimId.MAX_INDEX);
    }
    if (offset < 0) {
      throw new IllegalArgumentException("entry offset " + offset + " is negative");
    }
    if (length < 1) {
      throw new IllegalArgumentException("entry length " + length + " is not positive");
    }
    if (offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException(
          "entry offset " + offset + " + length " + length + " overflows");
    }
    Objects.requireNonNull(codec, "codec");
  }

  /** Returns the offset just past the claim's stored bytes. */
  public long end() {
    return offset + length;
  }
}
