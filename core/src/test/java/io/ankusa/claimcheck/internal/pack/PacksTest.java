package io.ankusa.claimcheck.internal.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.Fixtures;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.ref.Tenant;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PacksTest {

  /**
   * The version-1 pack holding the one claim "hi!", written out by hand from the documented layout
   * (CRC32 and CRC32C computed with Python). Never edit; add a new version instead.
   */
  private static final byte[] GOLDEN_V1 =
      HexFormat.of()
          .parseHex(
              String.join(
                  "",
                  "414b504b", // "AKPK"
                  "01", // version 1
                  "00000001", // 1 entry
                  "00000011", // index length 17
                  "000000000000002d", // pack length 45
                  "f83ee2f4", // CRC32 of the 21 header bytes above, then the index
                  "000000000000002a", // entry 0: offset 42
                  "00000003", // length 3
                  "a2e89566", // CRC32C("hi!")
                  "00", // codec NONE
                  "686921")); // "hi!"

  @Test
  void versionOneBytesArePinned() {
    EncodedPack pack = Packs.encode(List.of(input("hi!", Codec.NONE)));
    assertThat(pack.bytes()).containsExactly(GOLDEN_V1);
    assertThat(pack.entries()).containsExactly(new PackEntry(0, 42, 3, 0xa2e89566, Codec.NONE));
    assertThat(PackReader.parseIndex(GOLDEN_V1)).isEqualTo(pack.entries());
  }

  @Test
  void aPackIsItsHeadThenEachClaimsOwnArrayUncopied() {
    byte[] first = "first claim".getBytes(StandardCharsets.US_ASCII);
    byte[] second = new byte[70_000];
    new Random(2).nextBytes(second);
    EncodedPack pack =
        Packs.encode(
            List.of(new PackEntryInput(first, Codec.NONE), new PackEntryInput(second, Codec.ZSTD)));
    assertThat(pack.parts()).hasSize(3);
    assertThat(pack.parts().get(0)).hasSize(PackFormat.HEADER_LENGTH + 2 * 17);
    assertThat(pack.parts().get(1)).isSameAs(first);
    assertThat(pack.parts().get(2)).isSameAs(second);
    byte[] whole = pack.bytes();
    assertThat(pack.length()).isEqualTo(whole.length);
    assertThat(PackReader.parseIndex(whole)).isEqualTo(pack.entries());
    for (PackEntry e : pack.entries()) {
      byte[] claim = Arrays.copyOfRange(whole, (int) e.offset(), (int) e.offset() + e.length());
      assertThat(claim).isEqualTo(e.index() == 0 ? first : second);
    }
  }

  @Test
  void aOneClaimPackCostsFortyTwoBytes() {
    byte[] claim = new byte[1000];
    new Random(1).nextBytes(claim);
    EncodedPack pack = Packs.encode(List.of(new PackEntryInput(claim, Codec.LZ4)));
    int overhead = pack.bytes().length - claim.length;
    assertThat(overhead)
        .isEqualTo(PackFormat.HEADER_LENGTH + PackFormat.ENTRY_LENGTH_V1)
        .isLessThan(64);
    PackEntry entry = pack.entries().get(0);
    assertThat(entry.offset()).isEqualTo(overhead);
    assertThat(PackReader.readClaim(pack.bytes(), entry)).containsExactly(claim);
  }

  @Test
  void randomPacksRoundTripThroughBothReadPaths() {
    Random random = new Random(3);
    for (int p = 0; p < 300; p++) {
      List<PackEntryInput> inputs = randomInputs(random, 1 + random.nextInt(p % 10 == 0 ? 300 : 8));
      EncodedPack pack = Packs.encode(inputs);
      byte[] bytes = pack.bytes();

      // The reader's way: one GET for the header, one for the index, one per claim.
      PackHeader header = PackReader.parseHeader(Arrays.copyOf(bytes, PackFormat.HEADER_LENGTH));
      assertThat(header.entryCount()).isEqualTo(inputs.size());
      assertThat(header.packLength()).isEqualTo(bytes.length);
      byte[] index = Arrays.copyOfRange(bytes, header.indexOffset(), header.prefixLength());
      assertThat(PackReader.parseIndex(header, index)).isEqualTo(pack.entries());
      // Or header and index in one GET.
      assertThat(PackReader.parseIndex(Arrays.copyOf(bytes, header.prefixLength())))
          .isEqualTo(pack.entries());

      Tenant tenant = Fixtures.tenant(random);
      PackId id = PackId.random(random);
      for (int i = 0; i < inputs.size(); i++) {
        PackEntry entry = pack.entries().get(i);
        assertThat(entry.index()).isEqualTo(i);
        assertThat(entry.codec()).isEqualTo(inputs.get(i).codec());
        assertThat(PackReader.readClaim(bytes, entry)).containsExactly(inputs.get(i).storedBytes());

        // A ref to the claim redeems with one ranged read at its offset hint.
        ClaimRef ref = RefCodec.decode(RefCodec.encode(PackReader.toRef(tenant, id, entry)));
        assertThat(ref.claimId()).isEqualTo(new ClaimId(id, i));
        assertThat(ref.version()).isEqualTo(1);
        // A writer's ref records the raw length when compressed (version 2).
        int rawLength = entry.codec() == Codec.NONE ? entry.length() : 3 * entry.length();
        ClaimRef written =
            RefCodec.decode(RefCodec.encode(Packs.toRef(tenant, id, entry, rawLength)));
        assertThat(written.version()).isEqualTo(entry.codec() == Codec.NONE ? 1 : 2);
        assertThat(written.rawLength()).isEqualTo(rawLength);
        assertThat(written.offset()).isEqualTo(ref.offset());
        byte[] ranged =
            Arrays.copyOfRange(bytes, (int) ref.offset(), (int) (ref.offset() + ref.length()));
        Packs.checkClaim(ref, ranged);
        assertThat(ranged).containsExactly(inputs.get(i).storedBytes());
      }
    }
  }

  @Test
  void holdsUpToMaxEntries() {
    List<PackEntryInput> inputs =
        Collections.nCopies(PackFormat.MAX_ENTRIES, new PackEntryInput(new byte[] {7}, Codec.NONE));
    EncodedPack pack = Packs.encode(inputs);
    List<PackEntry> entries = PackReader.parseIndex(pack.bytes());
    assertThat(entries).hasSize(65536);
    assertThat(entries.get(65535).index()).isEqualTo(ClaimId.MAX_INDEX);
    assertThat(PackReader.readClaim(pack.bytes(), entries.get(65535))).containsExactly(7);

    List<PackEntryInput> tooMany = new ArrayList<>(inputs);
    tooMany.add(inputs.get(0));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Packs.encode(tooMany))
        .withMessageContaining("65537");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Packs.encode(List.of()))
        .withMessageContaining("not 0");
  }

  @Test
  void everyBitFlipInHeaderOrIndexIsCorrupt() {
    Random random = new Random(4);
    for (int claims : new int[] {1, 3}) {
      byte[] good = Packs.encode(randomInputs(random, claims)).bytes();
      int prefix = PackFormat.HEADER_LENGTH + claims * PackFormat.ENTRY_LENGTH_V1;
      for (int bit = 0; bit < prefix * 8; bit++) {
        byte[] bad = good.clone();
        bad[bit / 8] ^= (byte) (1 << (bit % 8));
        assertCorrupt(() -> PackReader.parseIndex(bad), "bit " + bit);
        assertCorrupt(
            () -> {
              PackHeader header = PackReader.parseHeader(bad);
              return PackReader.parseIndex(
                  header,
                  Arrays.copyOfRange(
                      bad,
                      PackFormat.HEADER_LENGTH,
                      PackFormat.HEADER_LENGTH + header.indexLength()));
            },
            "bit " + bit + " (two reads)");
      }
    }
  }

  @Test
  void everyBitFlipInAClaimIsCaughtByItsChecksum() {
    Random random = new Random(5);
    EncodedPack pack = Packs.encode(randomInputs(random, 3));
    byte[] good = pack.bytes();
    int dataStart = PackFormat.HEADER_LENGTH + 3 * PackFormat.ENTRY_LENGTH_V1;
    for (int bit = dataStart * 8; bit < good.length * 8; bit++) {
      byte[] bad = good.clone();
      bad[bit / 8] ^= (byte) (1 << (bit % 8));
      List<PackEntry> entries = PackReader.parseIndex(bad); // the index itself is intact
      int at = bit / 8;
      for (PackEntry entry : entries) {
        boolean hit = at >= entry.offset() && at < entry.end();
        if (hit) {
          assertThatThrownBy(() -> PackReader.readClaim(bad, entry))
              .isInstanceOf(CorruptPackException.class)
              .hasMessageContaining("CRC32C mismatch");
        } else {
          assertThat(PackReader.readClaim(bad, entry)).isNotEmpty();
        }
      }
    }
  }

  @Test
  void truncationAtEveryLengthIsCorrupt() {
    byte[] good = Packs.encode(randomInputs(new Random(6), 2)).bytes();
    int prefix = PackFormat.HEADER_LENGTH + 2 * PackFormat.ENTRY_LENGTH_V1;
    for (int length = 0; length < prefix; length++) {
      byte[] cut = Arrays.copyOf(good, length);
      assertThatThrownBy(() -> PackReader.parseIndex(cut))
          .isInstanceOf(CorruptPackException.class)
          .hasMessageContaining("truncated");
    }
    PackHeader header = PackReader.parseHeader(good);
    assertThatThrownBy(() -> PackReader.parseIndex(header, new byte[header.indexLength() - 1]))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining("truncated");
    PackEntry last = PackReader.parseIndex(good).get(1);
    assertThatThrownBy(() -> PackReader.readClaim(Arrays.copyOf(good, good.length - 1), last))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining("past the");
    assertThatThrownBy(() -> Packs.checkClaim(last, new byte[last.length() - 1]))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageContaining("expected");
  }

  @Test
  void intactButInconsistentIndexesAreCorrupt() {
    long[][] ok = {{59, 10, 0}, {69, 5, 0}}; // header 25 + index 34 = 59: the data start
    assertThat(PackReader.parseIndex(prefix(1, 74, ok))).hasSize(2);
    assertThat(PackReader.parseIndex(prefix(1, 100, new long[][] {{59, 10, 0}, {80, 5, 0}})))
        .as("gaps are allowed")
        .hasSize(2);

    assertCorruptWith(prefix(1, 74, new long[][] {{59, 10, 0}, {68, 6, 0}}), "overlaps");
    assertCorruptWith(prefix(1, 74, new long[][] {{58, 10, 0}, {69, 5, 0}}), "starts before");
    assertCorruptWith(prefix(1, 74, new long[][] {{69, 5, 0}, {59, 10, 0}}), "overlaps");
    assertCorruptWith(prefix(1, 74, new long[][] {{-1, 10, 0}, {69, 5, 0}}), "offset -1 starts");
    assertCorruptWith(prefix(1, 74, new long[][] {{59, 10, 0}, {69, 6, 0}}), "past the 74-byte");
    assertCorruptWith(
        prefix(1, 74, new long[][] {{59, 10, 0}, {Long.MAX_VALUE, 5, 0}}), "past the 74-byte");
    assertCorruptWith(prefix(1, 74, new long[][] {{59, 0, 0}, {69, 5, 0}}), "length 0");
    assertCorruptWith(prefix(1, 74, new long[][] {{59, -3, 0}, {69, 5, 0}}), "length -3");
    assertCorruptWith(prefix(1, 74, new long[][] {{59, 10, 5}, {69, 5, 0}}), "codec id 5");
    assertCorruptWith(prefix(1, 60, ok), "pack length 60");
    assertCorruptWith(prefix(2, 74, ok), "unknown pack version 2");
    assertCorruptWith(prefix(1, 74, new long[0][]), "entry count 0");

    byte[] lengthMismatch = prefix(1, 74, ok);
    Bytes.putInt(lengthMismatch, 9, 35);
    assertCorruptWith(lengthMismatch, "index length 35");
    byte[] badMagic = prefix(1, 74, ok);
    badMagic[3] = 'X';
    assertCorruptWith(badMagic, "bad magic");
  }

  @Test
  void parseIndexRefusesAHeaderItDidNotParse() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> PackReader.parseIndex(new PackHeader(1, 2, 17, 100, 0), new byte[34]));
  }

  private static void assertCorruptWith(byte[] prefix, String message) {
    assertThatThrownBy(() -> PackReader.parseIndex(prefix))
        .isInstanceOf(CorruptPackException.class)
        .hasMessageStartingWith("corrupt pack: ")
        .hasMessageContaining(message);
  }

  private static void assertCorrupt(java.util.concurrent.Callable<?> read, String what) {
    try {
      Object parsed = read.call();
      fail("%s: parsed %s", what, parsed);
    } catch (CorruptPackException expected) {
      assertThat(expected).hasMessageStartingWith("corrupt pack: ");
    } catch (Exception e) {
      fail("%s: %s instead of CorruptPackException", what, e);
    }
  }

  /**
   * Builds an intact header + index (right CRC32, computed here independently of the production
   * code) from {offset, length, codecId} rows.
   */
  private static byte[] prefix(int version, long packLength, long[][] rows) {
    int indexLength = rows.length * PackFormat.ENTRY_LENGTH_V1;
    byte[] out = new byte[PackFormat.HEADER_LENGTH + indexLength];
    System.arraycopy("AKPK".getBytes(StandardCharsets.US_ASCII), 0, out, 0, 4);
    out[4] = (byte) version;
    Bytes.putInt(out, 5, rows.length);
    Bytes.putInt(out, 9, indexLength);
    Bytes.putLong(out, 13, packLength);
    for (int i = 0; i < rows.length; i++) {
      int at = PackFormat.HEADER_LENGTH + i * PackFormat.ENTRY_LENGTH_V1;
      Bytes.putLong(out, at, rows[i][0]);
      Bytes.putInt(out, at + 8, (int) rows[i][1]);
      out[at + 16] = (byte) rows[i][2];
    }
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(out, 0, 21);
    crc.update(out, PackFormat.HEADER_LENGTH, indexLength);
    Bytes.putInt(out, 21, (int) crc.getValue());
    return out;
  }

  private static List<PackEntryInput> randomInputs(Random random, int count) {
    List<PackEntryInput> inputs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte[] stored = new byte[1 + random.nextInt(random.nextInt(10) == 0 ? 5000 : 40)];
      random.nextBytes(stored);
      inputs.add(new PackEntryInput(stored, Codec.values()[random.nextInt(Codec.values().length)]));
    }
    return inputs;
  }

  private static PackEntryInput input(String s, Codec codec) {
    return new PackEntryInput(s.getBytes(StandardCharsets.US_ASCII), codec);
  }
}
