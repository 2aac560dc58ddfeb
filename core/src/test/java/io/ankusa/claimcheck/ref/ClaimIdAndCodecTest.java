package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.ankusa.claimcheck.internal.pack.PackEntry;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.wire.Checksums;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClaimIdAndCodecTest {

  private static final PackId PACK = PackId.parseHex("00ff00ff00ff00ff");

  @Test
  void claimIdPrintsPackHexAndIndex() {
    assertThat(new ClaimId(PACK, 3)).hasToString("00ff00ff00ff00ff#3");
    assertThat(new ClaimId(PACK, 65535)).hasToString("00ff00ff00ff00ff#65535");
    assertThat(new ClaimId(PACK, 0)).isEqualTo(new ClaimId(PackId.parseHex("00ff00ff00ff00ff"), 0));
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 65536, Integer.MIN_VALUE, Integer.MAX_VALUE})
  void claimIdRejectsIndexOutOfRange(int index) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimId(PACK, index))
        .withMessageContaining(String.valueOf(index));
  }

  @Test
  void codecIdsArePinned() {
    assertThat(Codec.NONE.id()).isZero();
    assertThat(Codec.GZIP.id()).isEqualTo(1);
    assertThat(Codec.SNAPPY.id()).isEqualTo(2);
    assertThat(Codec.LZ4.id()).isEqualTo(3);
    assertThat(Codec.ZSTD.id()).isEqualTo(4);
    for (Codec codec : Codec.values()) {
      assertThat(Codec.ofId(codec.id())).isSameAs(codec);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 5, 255, 256, Integer.MAX_VALUE})
  void unknownCodecIdIsRejected(int id) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Codec.ofId(id))
        .withMessage("unknown codec id " + id);
  }

  @Test
  void claimRefValidatesItsFields() {
    Tenant t = Tenant.of("t");
    ClaimId id = new ClaimId(PACK, 0);
    assertThat(ClaimRef.of(t, id, 0, 1, 0, Codec.NONE).version()).isEqualTo(1);
    assertThat(ClaimRef.of(t, id, Long.MAX_VALUE - 1, 1, 0, Codec.NONE).offset())
        .isEqualTo(Long.MAX_VALUE - 1);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(0, t, id, 0, 1, 0, Codec.NONE))
        .withMessageContaining("version 0");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(6, t, id, 0, 1, 0, Codec.NONE))
        .withMessageContaining("version 6");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(3, t, id, 0, 1, 0, Codec.NONE))
        .withMessageContaining("records its raw length");
    // Version 3 (encrypted): the stored envelope is longer than the claim, at any codec.
    assertThat(ClaimRef.ofEncrypted(t, id, 0, 100, 0, Codec.NONE, 40).isEncrypted()).isTrue();
    assertThat(ClaimRef.of(t, id, 0, 100, 0, Codec.NONE).isEncrypted()).isFalse();
    // Version 4 (a streamed claim) records its raw length, and is the whole object.
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(4, t, id, 0, 1, 0, Codec.NONE))
        .withMessageContaining("records its raw length");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(4, t, id, 42, 1, 0, Codec.NONE, 1))
        .withMessageContaining("whole object");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(1, t, id, 0, 1L << 31, 0, Codec.NONE))
        .withMessageContaining("at most");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClaimRef.ofEncrypted(t, id, 0, 1L << 31, 0, Codec.NONE, 40))
        .withMessageContaining("at most");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(2, t, id, 0, 1, 0, Codec.NONE))
        .withMessageContaining("records its raw length");
  }

  @Test
  void claimRefRawLengthFollowsVersionAndCodec() {
    Tenant t = Tenant.of("t");
    ClaimId id = new ClaimId(PACK, 0);
    // Uncompressed: version 1, the raw length is the stored length.
    ClaimRef plain = ClaimRef.of(t, id, 0, 10, 0, Codec.NONE, 10);
    assertThat(plain.version()).isEqualTo(1);
    assertThat(plain.rawLength()).isEqualTo(10);
    assertThat(plain.knowsRawLength()).isTrue();
    // Compressed: version 2 records it.
    ClaimRef zstd = ClaimRef.of(t, id, 0, 10, 0, Codec.ZSTD, 5000);
    assertThat(zstd.version()).isEqualTo(2);
    assertThat(zstd.rawLength()).isEqualTo(5000);
    // A compressed version-1 ref does not know it.
    ClaimRef old = ClaimRef.of(t, id, 0, 10, 0, Codec.ZSTD);
    assertThat(old.version()).isEqualTo(1);
    assertThat(old.rawLength()).isEqualTo(ClaimRef.UNKNOWN_RAW_LENGTH);
    assertThat(old.knowsRawLength()).isFalse();

    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClaimRef.of(t, id, 0, 10, 0, Codec.NONE, 11))
        .withMessageContaining("raw length 11");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClaimRef.of(t, id, 0, 10, 0, Codec.GZIP, -1))
        .withMessageContaining("raw length -1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ClaimRef(1, t, id, 0, 10, 0, Codec.GZIP, 100))
        .withMessageContaining("version-1 ref does not record");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClaimRef.of(t, id, -1, 1, 0, Codec.NONE))
        .withMessageContaining("offset -1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClaimRef.of(t, id, 0, 0, 0, Codec.NONE))
        .withMessageContaining("length 0");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClaimRef.of(t, id, 0, -5, 0, Codec.NONE))
        .withMessageContaining("length -5");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ClaimRef.of(t, id, Long.MAX_VALUE, 1, 0, Codec.NONE))
        .withMessageContaining("overflows");
  }

  @Test
  void packEntryValidatesItsFields() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new PackEntry(65536, 0, 1, 0, Codec.NONE));
    assertThatIllegalArgumentException().isThrownBy(() -> new PackEntry(0, -1, 1, 0, Codec.NONE));
    assertThatIllegalArgumentException().isThrownBy(() -> new PackEntry(0, 0, 0, 0, Codec.NONE));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new PackEntry(0, Long.MAX_VALUE, 1, 0, Codec.NONE));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new PackEntryInput(new byte[0], Codec.NONE))
        .withMessageContaining("empty");
  }

  @Test
  void checksumsAreStandardCrc32c() {
    // The CRC32C check value: crc32c("123456789") = 0xe3069283.
    byte[] check = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(Checksums.crc32c(check)).isEqualTo(0xe3069283);
    byte[] padded = "xx123456789y".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(Checksums.crc32c(padded, 2, 9)).isEqualTo(0xe3069283);
    assertThat(Checksums.crc32c(new byte[0])).isZero();
  }
}
