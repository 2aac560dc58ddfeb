package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RefCodecTest {

  /** A fixed ref and, below, its version-1 bytes written out by hand from the documented layout. */
  private static final ClaimRef GOLDEN_REF = ClaimRef.of(Tenant.of("acme.payments-eu_1"),
      new ClaimId(PackId.parseHex("0123456789abcdef"), 258), 42, 1_048_576, 0xdeadbeef,
      Codec.ZSTD);

  /**
   * Version 1, pinned: if this test fails, refs already in Kafka topics would stop decoding.
   * Never edit these bytes; add a new version instead. The CRC32 was computed with Python's zlib.
   */
  private static final byte[] GOLDEN_V1 = HexFormat.of().parseHex(String.join("",
      "00f7ac6b", // magic
      "01", // version 1
      "2e", // body length 46
      "12", // tenant length 18
      "61636d652e7061796d656e74732d65755f31", // "acme.payments-eu_1"
      "0123456789abcdef", // pack id
      "0102", // claim index 258
      "000000000000002a", // offset 42
      "00100000", // length 1 MiB
      "deadbeef", // CRC32C of the stored bytes
      "04", // codec ZSTD
      "0ec52c3a")); // CRC32 of all preceding bytes

  @Test
  void versionOneBytesArePinned() {
    assertThat(RefCodec.decode(GOLDEN_V1)).isEqualTo(GOLDEN_REF);
    assertThat(RefCodec.encode(GOLDEN_REF)).containsExactly(GOLDEN_V1);
    assertThat(RefCodec.isRef(GOLDEN_V1)).isTrue();
  }

  @Test
  void randomRefsRoundTrip() {
    Random random = new Random(42);
    for (int i = 0; i < 20_000; i++) {
      ClaimRef ref = Fixtures.ref(random);
      byte[] bytes = RefCodec.encode(ref);
      assertThat(RefCodec.isRef(bytes)).isTrue();
      assertThat(RefCodec.decode(bytes)).isEqualTo(ref);
      assertThat(bytes.length).isLessThanOrEqualTo(RefCodec.MAX_V1_LENGTH);
    }
  }

  @Test
  void extremesRoundTripAndStayUnderOneHundredBytes() {
    Tenant longest = Tenant.of("a".repeat(Tenant.MAX_LENGTH));
    ClaimRef ref = ClaimRef.of(longest, new ClaimId(new PackId(-1), ClaimId.MAX_INDEX),
        Long.MAX_VALUE - Integer.MAX_VALUE, Integer.MAX_VALUE, -1, Codec.ZSTD);
    byte[] bytes = RefCodec.encode(ref);
    assertThat(RefCodec.decode(bytes)).isEqualTo(ref);
    assertThat(bytes).hasSize(RefCodec.MAX_V1_LENGTH);
    assertThat(RefCodec.MAX_V1_LENGTH).isLessThan(100);

    ClaimRef smallest = ClaimRef.of(Tenant.of("a"), new ClaimId(new PackId(0), 0), 0, 1, 0,
        Codec.NONE);
    assertThat(RefCodec.decode(RefCodec.encode(smallest))).isEqualTo(smallest);
  }

  @Test
  void everySingleBitFlipIsRejected() {
    Random random = new Random(1);
    for (int r = 0; r < 200; r++) {
      ClaimRef ref = r == 0 ? GOLDEN_REF : Fixtures.ref(random);
      byte[] good = RefCodec.encode(ref);
      for (int bit = 0; bit < good.length * 8; bit++) {
        byte[] bad = good.clone();
        bad[bit / 8] ^= (byte) (1 << (bit % 8));
        assertThat(RefCodec.isRef(bad)).as("bit %d of %s", bit, ref).isFalse();
        try {
          ClaimRef decoded = RefCodec.decode(bad);
          fail("bit %d flipped in %s decoded into %s", bit, ref, decoded);
        } catch (MalformedRefException e) {
          assertThat(e.reason()).isIn(Reason.BAD_MAGIC, Reason.BAD_CRC, Reason.TRUNCATED,
              Reason.TRAILING_BYTES);
        }
      }
    }
  }

  @Test
  void truncationAtEveryLengthIsRejected() {
    byte[] good = RefCodec.encode(GOLDEN_REF);
    for (int length = 0; length < good.length; length++) {
      byte[] cut = Arrays.copyOf(good, length);
      assertThat(RefCodec.isRef(cut)).isFalse();
      assertThatThrownBy(() -> RefCodec.decode(cut))
          .isInstanceOfSatisfying(MalformedRefException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
    }
  }

  @Test
  void trailingBytesAreRejected() {
    byte[] good = RefCodec.encode(GOLDEN_REF);
    for (int extra = 1; extra <= 8; extra++) {
      byte[] longer = Arrays.copyOf(good, good.length + extra);
      assertThat(RefCodec.isRef(longer)).isFalse();
      assertThatThrownBy(() -> RefCodec.decode(longer))
          .isInstanceOfSatisfying(MalformedRefException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.TRAILING_BYTES));
    }
  }

  @Test
  void nonRefsAreRejectedAsBadMagic() {
    for (String s : new String[] {"{\"a\":1}", "hello", "\u0000\u0000\u0000\u0001xyzw"}) {
      assertThatThrownBy(() -> RefCodec.decode(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .isInstanceOfSatisfying(MalformedRefException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC));
    }
  }

  @Test
  void anIntactFrameOfAFutureVersionIsARefButUnknown() {
    byte[] future = frame(7, new byte[] {1, 2, 3});
    assertThat(RefCodec.isRef(future)).isTrue();
    assertThatThrownBy(() -> RefCodec.decode(future))
        .isInstanceOfSatisfying(MalformedRefException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_VERSION))
        .hasMessageContaining("version 7");
    assertThatThrownBy(() -> RefCodec.decode(frame(0, new byte[0])))
        .isInstanceOfSatisfying(MalformedRefException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_VERSION));
  }

  @Test
  void anIntactVersionOneFrameWithBadFieldsIsRejected() {
    byte[] body = Arrays.copyOfRange(GOLDEN_V1, RefCodec.FRAME_HEAD,
        GOLDEN_V1.length - RefCodec.FRAME_TAIL);
    assertBadField(withByte(body, 1, 'A')); // upper case in the tenant
    assertBadField(withByte(body, 1, '/')); // path character in the tenant
    assertBadField(withByte(body, 1, 0xC3)); // non-ASCII in the tenant
    assertBadField(withByte(body, body.length - 1, 9)); // unknown codec
    assertBadField(withInt(body, body.length - 9, 0)); // length 0
    assertBadField(withInt(body, body.length - 9, -1)); // negative length
    assertBadField(withByte(body, 0 + 1 + 18 + 8 + 2, 0x80)); // negative offset
    assertBadField(withByte(body, 0, 0)); // tenant length does not fit the body
    assertBadField(Arrays.copyOf(body, body.length + 1)); // body too long for its tenant
    assertBadField(new byte[0]);
    byte[] emptyTenant = Arrays.copyOfRange(body, 18, body.length);
    emptyTenant[0] = 0;
    assertBadField(emptyTenant);
  }

  @Test
  void encodeOutputIsFreshEachTime() {
    byte[] a = RefCodec.encode(GOLDEN_REF);
    a[10] = 0;
    assertThat(RefCodec.encode(GOLDEN_REF)).containsExactly(GOLDEN_V1);
  }

  private static void assertBadField(byte[] body) {
    byte[] bytes = frame(1, body);
    assertThat(RefCodec.isRef(bytes)).isTrue();
    assertThatThrownBy(() -> RefCodec.decode(bytes))
        .isInstanceOfSatisfying(MalformedRefException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.BAD_FIELD));
  }

  /** Builds an intact frame (magic, version, body, right CRC) around any body. */
  static byte[] frame(int version, byte[] body) {
    byte[] out = new byte[RefCodec.FRAME_HEAD + body.length + RefCodec.FRAME_TAIL];
    System.arraycopy(RefCodec.MAGIC, 0, out, 0, 4);
    out[4] = (byte) version;
    out[5] = (byte) body.length;
    System.arraycopy(body, 0, out, RefCodec.FRAME_HEAD, body.length);
    int end = out.length - RefCodec.FRAME_TAIL;
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(out, 0, end);
    Bytes.putInt(out, end, (int) crc.getValue());
    return out;
  }

  private static byte[] withByte(byte[] b, int at, int value) {
    byte[] copy = b.clone();
    copy[at] = (byte) value;
    return copy;
  }

  private static byte[] withInt(byte[] b, int at, int value) {
    byte[] copy = b.clone();
    Bytes.putInt(copy, at, value);
    return copy;
  }
}
