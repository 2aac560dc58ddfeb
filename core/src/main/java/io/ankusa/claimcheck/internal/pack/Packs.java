package io.ankusa.claimcheck.internal.pack;

import io.ankusa.claimcheck.internal.wire.Checksums;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * Writes packs, the store objects holding one or more claims, and checks a claim read back from
 * one; stateless and thread-safe.
 *
 * <pre>
 *   header ({@value PackFormat#HEADER_LENGTH} bytes, fixed; see {@link PackFormat#HEADER_LENGTH})
 *   index  (entry count x {@value PackFormat#ENTRY_LENGTH_V1} bytes: offset, length, CRC32C, codec)
 *   claims (the stored bytes, in index order, back to back)
 * </pre>
 *
 * <p>The header's CRC32 covers the header and the index; each claim's CRC32C is in its entry. A
 * one-claim pack costs {@value PackFormat#HEADER_LENGTH} + {@value PackFormat#ENTRY_LENGTH_V1}
 * bytes.
 *
 * <p><b>Who reads the index.</b> No {@code src/main} code: a ref carries its claim's offset,
 * length, CRC32C and codec, so a redeem is one ranged GET of exactly the claim's bytes, checked by
 * {@link #checkClaim(ClaimRef, byte[])}. Every pack still carries its index (one-claim packs from
 * the serializer, several claims per pack from {@code ClaimCheck.checkInAll} and the pipelined
 * {@code ClaimCheckProducer}), so a pack describes itself (see docs/wire-format.md); the tests'
 * {@code PackReader} parses and checks it, which keeps the written format honest.
 */
public final class Packs {

  private Packs() {}

  /**
   * Returns a pack holding {@code claims} (1..{@value PackFormat#MAX_ENTRIES}) in order, claim
   * {@code i} at index {@code i}; throws {@link IllegalArgumentException} when the count is out of
   * range or the pack would not fit in one array.
   */
  public static EncodedPack encode(List<PackEntryInput> claims) {
    return PackWriter.encode(claims);
  }

  /**
   * Returns the pack of {@code slots} (1..{@value PackFormat#MAX_ENTRIES}) in order, claim {@code
   * i}'s stored bytes written by {@code writer} straight into their slot of the pack's array (no
   * copy), the same bytes {@link #encode(List)} writes for them; throws {@link
   * IllegalArgumentException} as that does, and {@link IllegalStateException} when the writer
   * reports a length other than its slot's.
   */
  public static EncodedPack encode(List<PackSlot> slots, SlotWriter writer) {
    return PackWriter.encode(slots, writer);
  }

  /** Throws {@link CorruptPackException} unless {@code stored} has the entry's length, CRC32C. */
  public static void checkClaim(PackEntry entry, byte[] stored) {
    check("claim " + entry.index(), entry.length(), entry.checksum(), stored, Checksums::crc32c);
  }

  /** Throws {@link CorruptPackException} unless {@code stored} has the ref's length and CRC32C. */
  public static void checkClaim(ClaimRef ref, byte[] stored) {
    checkClaim(ref, stored, Checksums::crc32c);
  }

  /** {@link #checkClaim(ClaimRef, byte[])} with the CRC32C computed by {@code crc32c}. */
  public static void checkClaim(ClaimRef ref, byte[] stored, ToIntFunction<byte[]> crc32c) {
    check("claim " + ref.claimId(), ref.length(), ref.checksum(), stored, crc32c);
  }

  /**
   * Returns the ref a writer writes to the claim of {@code entry} in pack {@code pack}, whose
   * uncompressed length is {@code rawLength}: version 1 when the claim is stored uncompressed,
   * version 2 (recording {@code rawLength}) otherwise.
   */
  public static ClaimRef toRef(Tenant tenant, PackId pack, PackEntry entry, int rawLength) {
    return ClaimRef.of(
        tenant,
        new ClaimId(pack, entry.index()),
        entry.offset(),
        entry.length(),
        entry.checksum(),
        entry.codec(),
        rawLength);
  }

  private static void check(
      String what, long length, int checksum, byte[] stored, ToIntFunction<byte[]> crc32c) {
    Objects.requireNonNull(stored, "stored");
    if (stored.length != length) {
      throw corrupt(what + ": " + stored.length + " bytes read, " + length + " expected");
    }
    if (crc32c.applyAsInt(stored) != checksum) {
      throw corrupt(what + ": CRC32C mismatch, the stored bytes are damaged");
    }
  }

  static CorruptPackException corrupt(String message) {
    return new CorruptPackException("corrupt pack: " + message);
  }
}
