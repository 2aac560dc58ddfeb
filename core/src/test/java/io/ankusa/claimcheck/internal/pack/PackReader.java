package io.ankusa.claimcheck.internal.pack;

import static io.ankusa.claimcheck.internal.pack.Packs.corrupt;

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

/**
 * Reads a pack's header, index and claims, the way a tool would list and check a pack without its
 * refs; stateless and thread-safe. Test code: no {@code src/main} code reads an index (a redeem
 * reads one claim by its ref), but the tests read every pack the writer writes back through this,
 * and fuzz it, so the format on the wire (docs/wire-format.md) stays what it says.
 */
public final class PackReader {

  private PackReader() {}

  /**
   * Parses the header from the first {@value PackFormat#HEADER_LENGTH} bytes of {@code prefix} (any
   * further bytes are ignored). Its CRC also covers the index, so {@link #parseIndex} checks it.
   * Throws {@link CorruptPackException} if it is not a readable pack header.
   */
  public static PackHeader parseHeader(byte[] prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.length < PackFormat.HEADER_LENGTH) {
      throw corrupt(
          "truncated: " + prefix.length + " bytes, the header needs " + PackFormat.HEADER_LENGTH);
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
      return new PackHeader(
          version, count, indexLength, packLength, Bytes.getInt(prefix, PackFormat.HEADER_CRC_AT));
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
      throw corrupt(
          "claim "
              + entry.index()
              + " ends at "
              + entry.end()
              + ", past the "
              + pack.length
              + "-byte pack");
    }
    byte[] stored = Arrays.copyOfRange(pack, (int) entry.offset(), (int) entry.end());
    Packs.checkClaim(entry, stored);
    return stored;
  }

  /**
   * Returns the version-1 ref to the claim of {@code entry} in pack {@code pack} (its raw length
   * unknown when compressed); writers use {@link Packs#toRef(Tenant, PackId, PackEntry, int)}.
   */
  public static ClaimRef toRef(Tenant tenant, PackId pack, PackEntry entry) {
    return ClaimRef.of(
        tenant,
        new ClaimId(pack, entry.index()),
        entry.offset(),
        entry.length(),
        entry.checksum(),
        entry.codec());
  }

  private static List<PackEntry> parseIndex(PackHeader header, byte[] bytes, int at) {
    if (bytes.length - at < header.indexLength()) {
      throw corrupt(
          "truncated: the index needs "
              + header.indexLength()
              + " bytes, "
              + (bytes.length - at)
              + " were read");
    }
    if (PackWriter.headerCrc(header, bytes, at) != header.crc()) {
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
        throw corrupt(
            "claim "
                + i
                + " at offset "
                + offset
                + " starts before the claims, which"
                + " start at "
                + header.prefixLength());
      }
      if (offset < previousEnd) {
        throw corrupt(
            "claim "
                + i
                + " at offset "
                + offset
                + " overlaps what precedes it (which"
                + " ends at "
                + previousEnd
                + ")");
      }
      if (offset > header.packLength() - length) {
        throw corrupt(
            "claim "
                + i
                + " at offset "
                + offset
                + " of length "
                + length
                + " ends past the "
                + header.packLength()
                + "-byte pack");
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
}
