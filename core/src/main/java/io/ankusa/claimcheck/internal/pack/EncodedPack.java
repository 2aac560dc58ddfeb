package io.ankusa.claimcheck.internal.pack;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A pack ready to store: its bytes and the index entries of its claims; immutable by contract and
 * thread-safe.
 *
 * <p>{@link #bytes()} returns the pack's own array without copying (packs can be large, and the
 * store SPI takes a {@code byte[]}): callers must not modify it.
 *
 * @param bytes the whole pack object
 * @param entries the claims' entries, in index order
 */
public record EncodedPack(byte[] bytes, List<PackEntry> entries) {

  /** Validates and freezes the fields. */
  public EncodedPack {
    Objects.requireNonNull(bytes, "bytes");
    entries = List.copyOf(entries);
  }

  /** Equal when the bytes' contents and the entries are equal. */
  @Override
  public boolean equals(Object o) {
    return o instanceof EncodedPack other
        && Arrays.equals(bytes, other.bytes)
        && entries.equals(other.entries);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(bytes) + entries.hashCode();
  }

  @Override
  public String toString() {
    return "EncodedPack[" + bytes.length + " bytes, " + entries.size() + " claims]";
  }
}
