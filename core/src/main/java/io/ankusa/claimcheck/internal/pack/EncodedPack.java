package io.ankusa.claimcheck.internal.pack;

import java.util.Arrays;
import java.util.List;

/**
 * A pack ready to store: its bytes, as parts to be written one after the other, and the index
 * entries of its claims; immutable by contract and thread-safe.
 *
 * <p>The parts are the pack's own arrays, not copies (packs can be large): a pack encoded from
 * claims is its header and index, then each claim's stored array itself ({@link
 * io.ankusa.claimcheck.store.ClaimStore#putPartsIfAbsent(String, List, java.time.Duration)} writes
 * them without joining them); a pack encoded in place is one array. Callers must not modify them.
 *
 * @param parts the pack object's bytes, in order
 * @param entries the claims' entries, in index order
 */
public record EncodedPack(List<byte[]> parts, List<PackEntry> entries) {

  /** Validates and freezes the fields. */
  public EncodedPack {
    parts = List.copyOf(parts);
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("a pack has at least one part");
    }
    entries = List.copyOf(entries);
  }

  /** The whole pack object in one array: the lone part itself, else a new array of the parts. */
  public byte[] bytes() {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    byte[] out = new byte[Math.toIntExact(length())];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  /** The pack object's length in bytes. */
  public long length() {
    long n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    return n;
  }

  /** Equal when the packs' bytes and the entries are equal, however they are split in parts. */
  @Override
  public boolean equals(Object o) {
    return o instanceof EncodedPack other
        && Arrays.equals(bytes(), other.bytes())
        && entries.equals(other.entries);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(bytes()) + entries.hashCode();
  }

  @Override
  public String toString() {
    return "EncodedPack["
        + length()
        + " bytes in "
        + parts.size()
        + " parts, "
        + entries.size()
        + " claims]";
  }
}
