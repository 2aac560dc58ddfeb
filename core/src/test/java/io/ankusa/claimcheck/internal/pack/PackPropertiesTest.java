package io.ankusa.claimcheck.internal.pack;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.ref.Codec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Fuzzes the pack decoders: whatever the bytes, {@link PackReader#parseHeader} and {@link
 * PackReader#parseIndex} answer with a typed {@link CorruptPackException} or a header and index
 * that re-encode to exactly those bytes and lie inside the pack, in order; never another exception.
 */
class PackPropertiesTest {

  @Property
  void arbitraryBytesParseToATypedErrorOrTheSameBytes(@ForAll @Size(max = 200) byte[] bytes) {
    check(bytes);
  }

  @Property
  void bytesAfterTheMagicAndVersionParseToATypedErrorOrTheSameBytes(
      @ForAll @Size(max = 200) byte[] tail) {
    byte[] bytes = Arrays.copyOf(PackFormat.MAGIC, 5 + tail.length);
    bytes[4] = 1;
    System.arraycopy(tail, 0, bytes, 5, tail.length);
    check(bytes);
  }

  /**
   * A header whose fields are arbitrary but whose CRC is right, before an arbitrary index: the CRC
   * cannot be what protects the decoder from the fields.
   */
  @Property
  void arbitraryFieldsUnderARightCrcParseToATypedErrorOrTheSameBytes(
      @ForAll @IntRange(min = 0, max = 255) int version,
      @ForAll int count,
      @ForAll int indexLength,
      @ForAll long packLength,
      @ForAll @Size(max = 300) byte[] index,
      @ForAll boolean plausibleCount) {
    if (plausibleCount) {
      count = Math.floorMod(count, 12) + 1;
      indexLength = count * PackFormat.ENTRY_LENGTH_V1;
      index = Arrays.copyOf(index, indexLength);
    }
    byte[] bytes = new byte[PackFormat.HEADER_LENGTH + index.length];
    bytes[0] = 'A';
    bytes[1] = 'K';
    bytes[2] = 'P';
    bytes[3] = 'K';
    bytes[4] = (byte) version;
    Bytes.putInt(bytes, 5, count);
    Bytes.putInt(bytes, 9, indexLength);
    Bytes.putLong(bytes, 13, packLength);
    System.arraycopy(index, 0, bytes, PackFormat.HEADER_LENGTH, index.length);
    putCrc(bytes);
    check(bytes);
  }

  /** A valid pack with one header or index byte changed and the CRC recomputed. */
  @Property
  void validPacksWithOneFieldChangedParseToATypedErrorOrTheSameBytes(
      @ForAll("packs") EncodedPack pack,
      @ForAll @IntRange(min = 0, max = 100_000) int where,
      @ForAll byte value) {
    int prefix = PackFormat.HEADER_LENGTH + pack.entries().size() * PackFormat.ENTRY_LENGTH_V1;
    byte[] bytes = pack.bytes().clone();
    int at = where % (prefix - 4);
    bytes[at < PackFormat.HEADER_CRC_AT ? at : at + 4] = value; // never the CRC itself
    putCrc(bytes);
    List<PackEntry> entries = check(bytes);
    for (PackEntry entry : entries) {
      // The claims an index points at are the pack's own (or corrupt), never out of bounds.
      try {
        byte[] claim = PackReader.readClaim(bytes, entry);
        assertThat(claim).hasSize(entry.length());
      } catch (CorruptPackException e) {
        assertThat(e.getMessage()).startsWith("corrupt pack: ");
      }
    }
  }

  @Property
  void validPacksRoundTrip(@ForAll("packs") EncodedPack pack) {
    assertThat(check(pack.bytes())).isEqualTo(pack.entries());
  }

  @Provide
  Arbitrary<EncodedPack> packs() {
    return Arbitraries.longs()
        .map(
            seed -> {
              Random random = new Random(seed);
              int n = 1 + random.nextInt(6);
              List<PackEntryInput> inputs = new ArrayList<>(n);
              for (int i = 0; i < n; i++) {
                byte[] claim = new byte[1 + random.nextInt(40)];
                random.nextBytes(claim);
                inputs.add(new PackEntryInput(claim, Codec.values()[random.nextInt(5)]));
              }
              return Packs.encode(inputs);
            });
  }

  /**
   * Parses {@code bytes} as the start of a pack and checks the contract; returns the entries, or
   * none when it was refused. Anything but a {@link CorruptPackException} fails the property.
   */
  static List<PackEntry> check(byte[] bytes) {
    PackHeader header;
    try {
      header = PackReader.parseHeader(bytes.clone());
    } catch (CorruptPackException e) {
      assertThat(e.getMessage()).startsWith("corrupt pack: ");
      try {
        PackReader.parseIndex(bytes.clone());
        throw new AssertionError("parseIndex took what parseHeader refused");
      } catch (CorruptPackException again) {
        return List.of();
      }
    }
    byte[] fields = new byte[PackFormat.HEADER_LENGTH];
    PackWriter.writeHeaderFields(fields, header);
    Bytes.putInt(fields, PackFormat.HEADER_CRC_AT, header.crc());
    assertThat(fields).isEqualTo(Arrays.copyOf(bytes, PackFormat.HEADER_LENGTH));

    List<PackEntry> entries;
    try {
      entries = PackReader.parseIndex(bytes.clone());
    } catch (CorruptPackException e) {
      assertThat(e.getMessage()).startsWith("corrupt pack: ");
      return List.of();
    }
    byte[] index = Arrays.copyOfRange(bytes, PackFormat.HEADER_LENGTH, header.prefixLength());
    assertThat(PackReader.parseIndex(header, index)).isEqualTo(entries);
    assertThat(entries).hasSize(header.entryCount());
    byte[] again = new byte[header.prefixLength()];
    long end = header.prefixLength();
    for (PackEntry entry : entries) {
      PackWriter.writeEntry(
          again, PackFormat.HEADER_LENGTH + entry.index() * PackFormat.ENTRY_LENGTH_V1, entry);
      assertThat(entry.offset()).isGreaterThanOrEqualTo(end);
      end = entry.end();
    }
    assertThat(end).isLessThanOrEqualTo(header.packLength());
    assertThat(Arrays.copyOfRange(again, PackFormat.HEADER_LENGTH, again.length)).isEqualTo(index);
    return entries;
  }

  private static void putCrc(byte[] bytes) {
    int indexLength = Bytes.getInt(bytes, 9);
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(bytes, 0, PackFormat.HEADER_CRC_AT);
    if (indexLength > 0 && indexLength <= bytes.length - PackFormat.HEADER_LENGTH) {
      crc.update(bytes, PackFormat.HEADER_LENGTH, indexLength);
    }
    Bytes.putInt(bytes, PackFormat.HEADER_CRC_AT, (int) crc.getValue());
  }
}
