package io.ankusa.claimcheck.internal.pack;

import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.internal.wire.Checksums;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32;

/** Writes version-1 packs; stateless and thread-safe. See {@link Packs} for the layout. */
final class PackWriter {

  /** The largest array a JVM reliably allocates. */
  static final int MAX_PACK_LENGTH = Integer.MAX_VALUE - 8;

  private PackWriter() {}

  /**
   * The pack of {@code claims}: its header and index in one new array, then each claim's own stored
   * array as it is (none copied), as the parts of {@link EncodedPack}.
   */
  static EncodedPack encode(List<PackEntryInput> claims) {
    int count = count(Objects.requireNonNull(claims, "claims").size());
    int indexLength = count * PackFormat.ENTRY_LENGTH_V1;
    int dataStart = PackFormat.HEADER_LENGTH + indexLength;
    long total = dataStart;
    for (PackEntryInput claim : claims) {
      total += Objects.requireNonNull(claim, "claim").storedBytes().length;
    }
    checkTotal(total);
    byte[] head = new byte[dataStart];
    List<byte[]> parts = new ArrayList<>(count + 1);
    parts.add(head);
    List<PackEntry> entries = new ArrayList<>(count);
    int entryAt = PackFormat.HEADER_LENGTH;
    int dataAt = dataStart;
    for (int i = 0; i < count; i++) {
      PackEntryInput claim = claims.get(i);
      byte[] stored = claim.storedBytes();
      PackEntry entry =
          new PackEntry(i, dataAt, stored.length, Checksums.crc32c(stored), claim.codec());
      entries.add(entry);
      writeEntry(head, entryAt, entry);
      parts.add(stored);
      entryAt += PackFormat.ENTRY_LENGTH_V1;
      dataAt += stored.length;
    }
    writeHeader(head, total, entries);
    return new EncodedPack(parts, entries);
  }

  /**
   * The pack of {@code slots} whose stored bytes {@code writer} writes into their slots of the pack
   * array, in index order, each checked to fill exactly its slot before its CRC32C is taken.
   */
  static EncodedPack encode(List<PackSlot> slots, SlotWriter writer) {
    int count = count(Objects.requireNonNull(slots, "slots").size());
    Objects.requireNonNull(writer, "writer");
    int indexLength = count * PackFormat.ENTRY_LENGTH_V1;
    long dataStart = PackFormat.HEADER_LENGTH + (long) indexLength;
    long total = dataStart;
    for (PackSlot slot : slots) {
      total += Objects.requireNonNull(slot, "slot").length();
    }
    byte[] out = new byte[checkTotal(total)];
    List<PackEntry> entries = new ArrayList<>(count);
    int entryAt = PackFormat.HEADER_LENGTH;
    int dataAt = (int) dataStart;
    for (int i = 0; i < count; i++) {
      PackSlot slot = slots.get(i);
      int length = slot.length();
      int wrote = writer.write(i, out, dataAt, length);
      if (wrote != length) {
        throw new IllegalStateException(
            "claim " + i + ": " + wrote + " bytes written into a slot of " + length);
      }
      int crc = Checksums.crc32c(out, dataAt, length);
      PackEntry entry = new PackEntry(i, dataAt, length, crc, slot.codec());
      entries.add(entry);
      writeEntry(out, entryAt, entry);
      entryAt += PackFormat.ENTRY_LENGTH_V1;
      dataAt += length;
    }
    writeHeader(out, out.length, entries);
    return new EncodedPack(List.of(out), entries);
  }

  private static int count(int count) {
    if (count < 1 || count > PackFormat.MAX_ENTRIES) {
      throw new IllegalArgumentException(
          "a pack holds 1.." + PackFormat.MAX_ENTRIES + " claims, not " + count);
    }
    return count;
  }

  private static int checkTotal(long total) {
    if (total > MAX_PACK_LENGTH) {
      throw new IllegalArgumentException(
          "a pack of " + total + " bytes exceeds the largest array (" + MAX_PACK_LENGTH + ")");
    }
    return (int) total;
  }

  /**
   * Writes the header of a pack of {@code packLength} bytes into {@code head}, which holds the
   * index of {@code entries} already.
   */
  private static void writeHeader(byte[] head, long packLength, List<PackEntry> entries) {
    int indexLength = entries.size() * PackFormat.ENTRY_LENGTH_V1;
    PackHeader header =
        new PackHeader(PackFormat.CURRENT_VERSION, entries.size(), indexLength, packLength, 0);
    writeHeaderFields(head, header);
    int crc = headerCrc(header, head, PackFormat.HEADER_LENGTH);
    Bytes.putInt(head, PackFormat.HEADER_CRC_AT, crc);
  }

  /** Writes the header's fields before its CRC into {@code out[0, HEADER_CRC_AT)}. */
  static void writeHeaderFields(byte[] out, PackHeader header) {
    System.arraycopy(PackFormat.MAGIC, 0, out, 0, PackFormat.MAGIC.length);
    out[4] = (byte) header.version();
    Bytes.putInt(out, 5, header.entryCount());
    Bytes.putInt(out, 9, header.indexLength());
    Bytes.putLong(out, 13, header.packLength());
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

  static void writeEntry(byte[] out, int at, PackEntry entry) {
    Bytes.putLong(out, at, entry.offset());
    Bytes.putInt(out, at + 8, entry.length());
    Bytes.putInt(out, at + 12, entry.checksum());
    out[at + 16] = (byte) entry.codec().id();
  }
}
