package io.ankusa.claimcheck.ref;

import java.util.Objects;

/**
 * One claim: a pack and the claim's index within it; immutable and thread-safe.
 *
 * @param pack the pack holding the claim
 * @param index the claim's index within the pack, 0..{@value #MAX_INDEX}
 */
public record ClaimId(PackId pack, int index) {

  /** The largest index of a claim within a pack (a pack holds at most 65536 claims). */
  public static final int MAX_INDEX = 0xffff;

  /** Validates the fields; throws {@link IllegalArgumentException} for an index out of range. */
  public ClaimId {
    Objects.requireNonNull(pack, "pack");
    if (index < 0 || index > MAX_INDEX) {
      throw new IllegalArgumentException("claim index " + index + " is outside 0.." + MAX_INDEX);
    }
  }

  /** Returns {@code packhex#index}, e.g. {@code 00ff00ff00ff00ff#3}. */
  @Override
  public String toString() {
    return pack.hex() + "#" + index;
  }
}
