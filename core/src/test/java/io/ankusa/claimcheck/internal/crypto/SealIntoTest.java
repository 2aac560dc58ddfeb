package io.ankusa.claimcheck.internal.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.subtle.AesGcmHkdfStreaming;
import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntry;
import io.ankusa.claimcheck.internal.pack.PackReader;
import io.ankusa.claimcheck.internal.pack.PackSlot;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Sealing in place ({@link Segmented#sealInto}, {@link Sealer#sealInto}, an encrypted pack by
 * {@link Packs#encode(List, io.ankusa.claimcheck.internal.pack.SlotWriter)}): an envelope written
 * into a slot of a larger array opens, no byte outside its slot changes, and a slot of the wrong
 * length is refused before anything is written.
 */
class SealIntoTest {

  private static final byte SENTINEL = 0x5a;
  private static final AesGcmHkdfStreaming AEAD = Segmented.of(new byte[32]);
  private static final byte[] HEADER = Envelope.header("local:/k", new byte[] {1, 2, 3}, 2);
  private static final byte[] AD = {9, 8, 7};

  private final FakeTicker ticker = new FakeTicker();
  private final String kek = "counting:" + UUID.randomUUID();

  private static byte[] plain(int n) {
    byte[] p = new byte[n];
    new Random(n).nextBytes(p);
    return p;
  }

  private static byte[] filled(int n) {
    byte[] out = new byte[n];
    Arrays.fill(out, SENTINEL);
    return out;
  }

  private static void assertUntouched(byte[] out, int from, int to) {
    for (int i = from; i < to; i++) {
      assertThat(out[i]).as("byte %d outside the slot", i).isEqualTo(SENTINEL);
    }
  }

  /** Lengths around segment boundaries, from 0 to a few segments. */
  private static int[] lengths() {
    int s = Segmented.PLAIN_SEGMENT;
    int first = s - Segmented.STREAM_HEADER;
    return new int[] {0, 1, first - 1, first, first + 1, first + s, first + 3 * s + 5, 1 << 20};
  }

  @Test
  void anEnvelopeSealedAtAnOffsetOpensAndLeavesTheRestOfTheArrayAlone() throws Exception {
    for (int n : lengths()) {
      byte[] p = plain(n);
      int length = Segmented.sealedLength(HEADER.length, n);
      assertThat(length).isEqualTo(Segmented.seal(AEAD, HEADER, AD, p).length);
      int at = 7;
      byte[] out = filled(at + length + 100);
      assertThat(Segmented.sealInto(AEAD, HEADER, AD, p, out, at)).isEqualTo(length);
      assertUntouched(out, 0, at);
      assertUntouched(out, at + length, out.length);
      assertThat(Arrays.copyOfRange(out, at, at + HEADER.length)).isEqualTo(HEADER);
      byte[] slot = Arrays.copyOfRange(out, at, at + length);
      assertThat(Segmented.open(AEAD, AD, slot, HEADER.length)).as("%d bytes", n).isEqualTo(p);
    }
  }

  @Test
  void aSlotPastTheArrayIsRefusedBeforeAnyByteIsWritten() {
    byte[] p = plain(50_000);
    int length = Segmented.sealedLength(HEADER.length, p.length);
    byte[] out = filled(length + 3);
    assertThatThrownBy(() -> Segmented.sealInto(AEAD, HEADER, AD, p, out, 4))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertUntouched(out, 0, out.length);
  }

  @Test
  void aSealerRefusesASlotOfAnotherLengthBeforeWritingAndFillsItsOwnExactly() throws Exception {
    Encryption e = encryption();
    Sealer sealer = e.sealer("acme", Long.MAX_VALUE / 2);
    byte[] p = plain(70_000);
    int length = sealer.sealedLength(p.length);
    assertThat(length).isEqualTo(sealer.seal("acme", 5, 0, Codec.NONE.id(), p).length);
    byte[] out = filled(length + 20);
    for (int wrong : new int[] {length - 1, length + 1}) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> sealer.sealInto("acme", 5, 0, Codec.NONE.id(), p, out, 10, wrong))
          .withMessageContaining(String.valueOf(length));
      assertUntouched(out, 0, out.length);
    }
    assertThat(sealer.sealInto("acme", 5, 0, Codec.NONE.id(), p, out, 10, length))
        .isEqualTo(length);
    assertUntouched(out, 0, 10);
    assertUntouched(out, 10 + length, out.length);
  }

  @Test
  void anEncryptedPackWrittenInPlaceDecodesAndEachClaimRedeems() throws Exception {
    Encryption e = encryption();
    long far = Long.MAX_VALUE / 2;
    long packId = 42;
    List<byte[]> plains = List.of(plain(1), plain(40_000), plain(1 << 20), plain(3));
    Codec[] codecs = {Codec.NONE, Codec.LZ4, Codec.NONE, Codec.LZ4};
    List<Sealer> sealers = new ArrayList<>();
    List<PackSlot> slots = new ArrayList<>();
    for (int i = 0; i < plains.size(); i++) {
      Sealer s = e.sealer("acme", far);
      sealers.add(s);
      slots.add(new PackSlot(s.sealedLength(plains.get(i).length), codecs[i]));
    }
    EncodedPack pack =
        Packs.encode(
            slots,
            (i, out, at, length) ->
                sealers
                    .get(i)
                    .sealInto("acme", packId, i, codecs[i].id(), plains.get(i), out, at, length));
    List<PackEntry> entries = PackReader.parseIndex(pack.bytes());
    assertThat(entries).isEqualTo(pack.entries()).hasSize(plains.size());
    for (PackEntry entry : entries) {
      int i = entry.index();
      assertThat(entry.length()).isEqualTo(slots.get(i).length());
      byte[] stored = PackReader.readClaim(pack.bytes(), entry); // checks its CRC32C
      ClaimRef ref =
          ClaimRef.ofEncrypted(
              Tenant.of("acme"),
              new ClaimId(new PackId(packId), i),
              entry.offset(),
              entry.length(),
              entry.checksum(),
              entry.codec(),
              plains.get(i).length);
      assertThat(e.open(ref, stored, far).join()).as("claim %d", i).isEqualTo(plains.get(i));
    }
  }

  private Encryption encryption() {
    long hour = Duration.ofHours(1).toNanos();
    EncryptionSettings s =
        new EncryptionSettings(kek, Map.of(), false, 5_000_000, hour, 1000, hour, Map.of());
    return new Encryption(s, ticker, KekProviders.load(), 0);
  }
}
