package io.ankusa.claimcheck.internal.ref;

import io.ankusa.claimcheck.internal.wire.Checksums;
import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32;

/**
 * Writes and reads packs, the store objects holding one or more claims; stateless and
 * thread-safe.
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
 * <p><b>Who reads the index.</b> The redeem path never does: a ref carries its claim's offset,
 * length, CRC32C and codec, so a redeem is one ranged GET of exactly the claim's bytes, checked by
 * {@link #checkClaim(ClaimRef, byte[])}. Every pack still carries its index (one-claim packs from
 * the serializer, several claims per pack from {@code ClaimCheck.checkInAll} and the pipelined
 * {@code ClaimCheckProducer}), so a pack describes itself: {@link #parseHeader}, {@link
 * #parseIndex}, {@link #readClaim} and {@link #toRef(Tenant, PackId, PackEntry)} let a tool list a
 * pack's claims and check them without the refs. No {@code src/main} code of any module calls
 * those four today; {@code PacksTest} and {@code PackPropertiesTest} (round trips, damaged and
 * arbitrary bytes) keep them and the on-the-wire format working. A tool reads the header with one
 * ranged GET, learns the index length, and reads the index (or header and index together when it
 * can guess the size), then each claim by its entry.
 */
public final class Packs {

  private Packs() {}

  /**
   * Returns a pack holding {@code claims} (1..{@value PackFormat#MAX_ENTRIES}) in order, claim
   * {@code i} at index {@code i}; throws {@link IllegalArgumentException} when the count is out
   * of range or the pack would not fit in one array.
   */
  public static EncodedPack encode(List<PackEntryInput> claims) {
    return PackWriter.encode(claims);
  }

  /**
   * Parses the header from the first {@value PackFormat#HEADER_LENGTH} bytes of {@code prefix}
   * (any further bytes are ignored). Its CRC also covers the index, so {@link #parseIndex} checks
   * it. Throws {@link CorruptPackException} if it is not a readable pack header.
   */
  public static PackHeader parseHeader(byte[] prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.length < PackFormat.HEADER_LENGTH) {
      throw corrupt("truncated: " + prefix.length + " bytes, the header needs "
          + PackFormat.HEADER_LENGTH);
    }
    for (int i = 0; i < PackFormat.MAGIC.length; i++) {
      if (prefix[i] != PackFormat.MAGIC[i]) {
        throw corrupt("bad magic: the object does not start with \"AKPK\"");
      }
    }
    int version = prefix[4] & 0xff;
    if (version != 1) {
      throw corrupt("unknown pack version " + version + " (this library reads 1)");
    }
    int count = Bytes.getInt(prefix, 5);
    int indexLength = Bytes.getInt(prefix, 9);
    long packLength = Bytes.getLong(prefix, 13);
    if (count < 1 || count > PackFormat.MAX_ENTRIES) {
      throw corrupt("entry count " + count + " is outside 1.." + PackFormat.MAX_ENTRIES);
    }
    if (indexLength != count * PackFormat.ENTRY_LENGTH_V1) {
      throw corrupt("index length " + indexLength + " does not fit " + count + " entries");
    }
    try {
      return new PackHeader(version, count, indexLength, packLength,
          Bytes.getInt(prefix, PackFormat.HEADER_CRC_AT));
    } catch (IllegalArgumentException e) {
      throw corrupt(e.getMessage());
    }
  }

  /**
   * Parses and verifies the index from the first {@code header.indexLength()} bytes of {@code
   * indexBytes}: the CRC32, and that every entry lies after the index, inside the pack, in order
   * and without overlap. Throws {@link CorruptPackException} otherwise.
   */
  public static List<PackEntry> parseIndex(PackHeader header, byte[] indexBytes) {
    Objects.requireNonNull(header, "header");
    Objects.requireNonNull(indexBytes, "indexBytes");
    if (header.version() != 1
        || header.indexLength() != header.entryCount() * PackFormat.ENTRY_LENGTH_V1) {
      throw new IllegalArgumentException("not a header from parseHeader: " + header);
    }
    return parseIndex(header, indexBytes, 0);
  }

  /** Parses and verifies header and index read together from the start of the pack. */
  public static List<PackEntry> parseIndex(byte[] packPrefix) {
    PackHeader header = parseHeader(packPrefix);
    return parseIndex(header, packPrefix, PackFormat.HEADER_LENGTH);
  }

  /** Returns a copy of the claim's stored bytes from the whole pack, verified by its checksum. */
  public static byte[] readClaim(byte[] pack, PackEntry entry) {
    Objects.requireNonNull(pack, "pack");
    Objects.requireNonNull(entry, "entry");
    if (entry.end() > pack.length) {
      throw corrupt("claim " + entry.index() + " ends at " + entry.end() + ", past the "
          + pack.length + "-byte pack");
    }
    byte[] stored = Arrays.copyOfRange(pack, (int) entry.offset(), (int) entry.end());
    checkClaim(entry, stored);
    return stored;
  }

  /** Throws {@link CorruptPackException} unless {@code stored} has the entry's length, CRC32C. */
  public static void checkClaim(PackEntry entry, byte[] stored) {
    check("claim " + entry.index(), entry.length(), entry.checksum(), stored);
  }

  /** Throws {@link CorruptPackException} unless {@code stored} has the ref's length and CRC32C. */
  public static void checkClaim(ClaimRef ref, byte[] stored) {
    check("claim " + ref.claimId(), ref.length(), ref.checksum(), stored);
  }

  /**
   * Returns the version-1 ref to the claim of {@code entry} in pack {@code pack} (its raw length
   * unknown when compressed); writers use {@link #toRef(Tenant, PackId, PackEntry, int)}.
   */
  public static ClaimRef toRef(Tenant tenant, PackId pack, PackEntry entry) {
    return ClaimRef.of(tenant, new ClaimId(pack, entry.index()), entry.offset(), entry.length(),
        entry.checksum(), entry.codec());
  }

  /**
   * Returns the ref a writer writes to the claim of {@code entry} in pack {@code pack}, whose
   * uncompressed length is {@code rawLength}: version 1 when the claim is stored uncompressed,
   * version 2 (recording {@code rawLength}) otherwise.
   */
  public static ClaimRef toRef(Tenant tenant, PackId pack, PackEntry entry, int rawLength) {
    return ClaimRef.of(tenant, new ClaimId(pack, entry.index()), entry.offset(), entry.length(),
        entry.checksum(), entry.codec(), rawLength);
  }

  private static List<PackEntry> parseIndex(PackHeader header, byte[] bytes, int at) {
    if (bytes.length - at < header.indexLength()) {
      throw corrupt("truncated: the index needs " + header.indexLength() + " bytes, "
          + (bytes.length - at) + " were read");
    }
    if (headerCrc(header, bytes, at) != header.crc()) {
      throw corrupt("CRC32 mismatch over header and index");
    }
    List<PackEntry> entries = new ArrayList<>(header.entryCount());
    long previousEnd = header.prefixLength();
    for (int i = 0; i < header.entryCount(); i++) {
      int e = at + i * PackFormat.ENTRY_LENGTH_V1;
      long offset = Bytes.getLong(bytes, e);
      int length = Bytes.getInt(bytes, e + 8);
      int codecId = bytes[e + 16] & 0xff;
      if (length < 1) {
        throw corrupt("claim " + i + " has length " + length);
      }
      if (offset < header.prefixLength()) {
        throw corrupt("claim " + i + " at offset " + offset + " starts before the claims, which"
            + " start at " + header.prefixLength());
      }
      if (offset < previousEnd) {
        throw corrupt("claim " + i + " at offset " + offset + " overlaps what precedes it (which"
            + " ends at " + previousEnd + ")");
      }
      if (offset > header.packLength() - length) {
        throw corrupt("claim " + i + " at offset " + offset + " of length " + length
            + " ends past the " + header.packLength() + "-byte pack");
      }
      Codec codec;
      try {
        codec = Codec.ofId(codecId);
      } catch (IllegalArgumentException ex) {
        throw corrupt("claim " + i + ": " + ex.getMessage());
      }
      entries.add(new PackEntry(i, offset, length, Bytes.getInt(bytes, e + 12), codec));
      previousEnd = offset + length;
    }
    return List.copyOf(entries);
  }

  /** The CRC32 over {@code header}'s fields before its CRC, then the index at {@code at}. */
  static int headerCrc(PackHeader header, byte[] index, int at) {
    byte[] fields = new byte[PackFormat.HEADER_CRC_AT];
    PackWriter.writeHeaderFields(fields, header);
    CRC32 crc = new CRC32();
    crc.update(fields);
    crc.update(index, at, header.indexLength());
    return (int) crc.getValue();
  }

  private static void check(String what, int length, int checksum, byte[] stored) {
    Objects.requireNonNull(stored, "stored");
    if (stored.length != length) {
      throw corrupt(what + ": " + stored.length + " bytes read, " + length + " expected");
    }
    if (Checksums.crc32c(stored) != checksum) {
      throw corrupt(what + ": CRC32C mismatch, the stored bytes are damaged");
    }
  }

  private static CorruptPackException corrupt(String message) {
    return new CorruptPackException("corrupt pack: " + message);
  }
}
