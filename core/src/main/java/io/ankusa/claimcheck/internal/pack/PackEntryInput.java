package io.ankusa.claimcheck.internal.pack;

import io.ankusa.claimcheck.ref.Codec;
import java.util.Arrays;
import java.util.Objects;

/**
 * One claim to put in a pack: its stored (already compressed) bytes and their codec; immutable by
 * contract and thread-safe.
 *
 * <p>The array is not copied (claims can be large): the caller hands it over and must not modify it
 * afterwards. {@link Packs#encode} makes it one of the pack's parts, as it is.
 *
 * @param storedBytes the claim's bytes as stored, at least 1 byte
 * @param codec how {@code storedBytes} are compressed
 */
public record PackEntryInput(byte[] storedBytes, Codec codec) {

  /** Validates the fields; throws {@link IllegalArgumentException} for an empty claim. */
  public PackEntryInput {
    Objects.requireNonNull(storedBytes, "storedBytes");
    Objects.requireNonNull(codec, "codec");
    if (storedBytes.length == 0) {
      throw new IllegalArgumentException("a claim must not be empty (empty payloads stay inline)");
    }
  }

  /** Equal when the codecs and the bytes' contents are equal. */
  @Override
  public boolean equals(Object o) {
    return o instanceof PackEntryInput other
        && codec == other.codec
        && Arrays.equals(storedBytes, other.storedBytes);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(storedBytes) + codec.hashCode();
  }

  @Override
  public String toString() {
    return "PackEntryInput[" + storedBytes.length + " bytes, " + codec + "]";
  }
}
