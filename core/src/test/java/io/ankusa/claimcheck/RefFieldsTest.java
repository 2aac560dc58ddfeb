package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.ref.Tenant;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/** The one ref-detection and ref-decoding rule every surface uses (decisions 1 and 5; issue 15). */
class RefFieldsTest {

  private final ClaimRef ref =
      ClaimRef.of(
          Tenant.of("acme"),
          new ClaimId(PackId.parseHex("00000000000000ff"), 0),
          29,
          1000,
          0x1234,
          Codec.NONE);
  private final byte[] frame = RefCodec.encode(ref);

  private static byte[] frameOfVersion(int version) {
    byte[] f = {0x00, (byte) 0xF7, (byte) 0xAC, 0x6B, (byte) version, 0, 0, 0, 0, 0};
    CRC32 crc = new CRC32();
    crc.update(f, 0, 6);
    ByteBuffer.wrap(f, 6, 4).putInt((int) crc.getValue());
    return f;
  }

  @Test
  void anIntactFrameOrAMarkedFieldWithTheMagicCarriesARef() {
    assertThat(RefFields.carriesRef(false, frame)).isTrue();
    assertThat(RefFields.carriesRef(true, frame)).isTrue();
    byte[] damaged = frame.clone();
    damaged[7] ^= 1;
    assertThat(RefFields.carriesRef(true, damaged)).isTrue(); // decode then refuses it
    assertThat(RefFields.carriesRef(false, damaged)).isFalse(); // nothing says it is a ref
    assertThat(RefFields.carriesRef(false, new byte[] {1, 2})).isFalse();
    assertThat(RefFields.carriesRef(true, (byte[]) null)).isFalse();
  }

  /**
   * Kafka Streams' ChangedSerializer writes a Change's new and old value with one Headers: the
   * marker the large one left must not turn the small one into a REFUSED ref (issue 15).
   */
  @Test
  void aMarkedValueWithoutTheRefMagicIsInline() {
    assertThat(RefFields.carriesRef(true, new byte[] {1, 2})).isFalse();
    assertThat(RefFields.carriesRef(true, new byte[0])).isFalse();
    assertThat(RefFields.carriesRef(true, new byte[] {0x00, (byte) 0xF7, (byte) 0xAC})).isFalse();
    assertThat(RefFields.carriesRef(true, "small".getBytes(StandardCharsets.UTF_8))).isFalse();
    assertThat(RefFields.carriesRef(true, ByteBuffer.wrap(new byte[] {1, 2}))).isFalse();
    assertThat(RefFields.carriesRef(true, ByteBuffer.allocate(1 << 20))).isFalse();
  }

  @Test
  void aBufferIsJudgedByItsRemainingBytesAndLeftAsItWas() {
    ByteBuffer b = ByteBuffer.allocate(frame.length + 3);
    b.put(new byte[] {9, 9, 9}).put(frame).position(3);
    assertThat(RefFields.carriesRef(false, b)).isTrue();
    assertThat(RefFields.carriesRef(true, b)).isTrue();
    assertThat(b.position()).isEqualTo(3);
    assertThat(RefFields.carriesRef(false, ByteBuffer.allocate(RefCodec.MAX_LENGTH + 1))).isFalse();
    ByteBuffer magicThenMore = ByteBuffer.allocate(1 << 20).put(RefCodec.MAGIC).position(0);
    assertThat(RefFields.carriesRef(false, magicThenMore)).isFalse(); // no frame is that long
    assertThat(RefFields.carriesRef(true, magicThenMore)).isTrue(); // decode then refuses it
    assertThat(RefFields.carriesRef(true, ByteBuffer.wrap(frame, 0, 3))).isFalse();
  }

  /** A marked field that starts with the magic but fails its checks is still a final REFUSED. */
  @Test
  void aMarkedFieldWithTheMagicButABadCrcIsRefused() {
    byte[] damaged = frame.clone();
    damaged[damaged.length - 1] ^= 1;
    assertThat(RefFields.carriesRef(true, damaged)).isTrue();
    assertThatThrownBy(() -> RefFields.decode(damaged, false))
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.REFUSED))
        .hasMessageContaining("BAD_CRC");
  }

  @Test
  void theMarkerNamesAreTheWireFormats() {
    assertThat(RefFields.marker(false)).isEqualTo("ankusa.claimcheck.value");
    assertThat(RefFields.marker(true)).isEqualTo("ankusa.claimcheck.key");
  }

  @Test
  void aFieldThatIsNoRefIsRefused() {
    assertThatThrownBy(() -> RefFields.decode(new byte[] {1, 2, 3}, false))
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.REFUSED))
        .hasMessageContaining("the value");
  }

  @Test
  void aRefOfAnUnknownVersionIsUnavailableUpgradeTheReader() {
    assertThatThrownBy(() -> RefFields.decode(frameOfVersion(9), true))
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE))
        .hasMessageContaining("upgrade the reader")
        .hasMessageContaining("version 9")
        .hasMessageContaining("the key");
  }

  @Test
  void aRefDecodes() {
    assertThat(RefFields.decode(frame, false)).isEqualTo(ref);
  }

  @Test
  void theMarkerValueIsTheRefVersionAsOneAsciiDigit() {
    assertThat(RefFields.markerValue(1)).isEqualTo("1");
    assertThat(RefFields.markerValue(2)).isEqualTo("2");
    assertThatThrownBy(() -> RefFields.markerValue(10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not one digit");
    assertThatThrownBy(() -> RefFields.markerValue(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
