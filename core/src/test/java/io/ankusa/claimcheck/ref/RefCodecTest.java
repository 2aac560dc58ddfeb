package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RefCodecTest {

  /** A fixed ref and, below, its version-1 bytes written out by hand from the documented layout. */
  private static final ClaimRef GOLDEN_REF =
      ClaimRef.of(
          Tenant.of("acme.payments-eu_1"),
          new ClaimId(PackId.parseHex("0123456789abcdef"), 258),
          42,
          1_048_576,
          0xdeadbeef,
          Codec.ZSTD);

  /**
   * Version 1, pinned: if this test fails, refs already in Kafka topics would stop decoding. Never
   * edit these bytes; add a new version instead. The CRC32 was computed with Python's zlib.
   */
  private static final byte[] GOLDEN_V1 =
      HexFormat.of()
          .parseHex(
              String.join(
                  "",
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

  /** The same claim as {@link #GOLDEN_REF}, in version 2: its raw length recorded (16 MiB). */
  private static final ClaimRef GOLDEN_V2_REF =
      ClaimRef.of(
          Tenant.of("acme.payments-eu_1"),
          new ClaimId(PackId.parseHex("0123456789abcdef"), 258),
          42,
          1_048_576,
          0xdeadbeef,
          Codec.ZSTD,
          16_777_216);

  /**
   * Version 2, pinned like version 1: never edit these bytes. Written by hand from the layout; the
   * CRC32 was computed with Python's zlib.
   */
  private static final byte[] GOLDEN_V2 =
      HexFormat.of()
          .parseHex(
              String.join(
                  "",
                  "00f7ac6b", // magic
                  "02", // version 2
                  "32", // body length 50
                  "12", // tenant length 18
                  "61636d652e7061796d656e74732d65755f31", // "acme.payments-eu_1"
                  "0123456789abcdef", // pack id
                  "0102", // claim index 258
                  "000000000000002a", // offset 42
                  "00100000", // length 1 MiB
                  "deadbeef", // CRC32C of the stored bytes
                  "04", // codec ZSTD
                  "01000000", // raw length 16 MiB
                  "b0f655cb")); // CRC32 of all preceding bytes

  @Test
  void versionTwoBytesArePinned() {
    assertThat(GOLDEN_V2_REF.version()).isEqualTo(2);
    assertThat(RefCodec.decode(GOLDEN_V2)).isEqualTo(GOLDEN_V2_REF);
    assertThat(RefCodec.encode(GOLDEN_V2_REF)).containsExactly(GOLDEN_V2);
    assertThat(RefCodec.isRef(GOLDEN_V2)).isTrue();
    assertThat(RefCodec.decode(GOLDEN_V2).rawLength()).isEqualTo(16_777_216);
  }

  @Test
  void versionOneStaysReadableWithItsRawLengthUnknownWhenCompressed() {
    ClaimRef v1 = RefCodec.decode(GOLDEN_V1);
    assertThat(v1.version()).isEqualTo(1);
    assertThat(v1.rawLength()).isEqualTo(ClaimRef.UNKNOWN_RAW_LENGTH);
  }

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
      assertThat(bytes.length)
          .isLessThanOrEqualTo(
              ref.version() == 1 ? RefCodec.MAX_V1_LENGTH : RefCodec.MAX_V2_LENGTH);
    }
  }

  @Test
  void extremesRoundTripAndStayUnderOneHundredBytes() {
    Tenant longest = Tenant.of("a".repeat(Tenant.MAX_LENGTH));
    ClaimRef ref =
        ClaimRef.of(
            longest,
            new ClaimId(new PackId(-1), ClaimId.MAX_INDEX),
            Long.MAX_VALUE - Integer.MAX_VALUE,
            Integer.MAX_VALUE,
            -1,
            Codec.ZSTD);
    byte[] bytes = RefCodec.encode(ref);
    assertThat(RefCodec.decode(bytes)).isEqualTo(ref);
    assertThat(bytes).hasSize(RefCodec.MAX_V1_LENGTH);
    assertThat(RefCodec.MAX_V1_LENGTH).isLessThan(100);

    ClaimRef smallest =
        ClaimRef.of(Tenant.of("a"), new ClaimId(new PackId(0), 0), 0, 1, 0, Codec.NONE);
    assertThat(RefCodec.decode(RefCodec.encode(smallest))).isEqualTo(smallest);

    ClaimRef longestV2 =
        ClaimRef.of(
            longest,
            new ClaimId(new PackId(-1), ClaimId.MAX_INDEX),
            Long.MAX_VALUE - Integer.MAX_VALUE,
            Integer.MAX_VALUE,
            -1,
            Codec.ZSTD,
            Integer.MAX_VALUE);
    byte[] v2 = RefCodec.encode(longestV2);
    assertThat(RefCodec.decode(v2)).isEqualTo(longestV2);
    assertThat(v2).hasSize(RefCodec.MAX_V2_LENGTH);
    assertThat(RefCodec.MAX_V2_LENGTH).isLessThan(100);
  }

  @Test
  void everySingleBitFlipIsRejected() {
    Random random = new Random(1);
    for (int r = 0; r < 200; r++) {
      ClaimRef ref = r == 0 ? GOLDEN_REF : r == 1 ? GOLDEN_V2_REF : Fixtures.ref(random);
      byte[] good = RefCodec.encode(ref);
      for (int bit = 0; bit < good.length * 8; bit++) {
        byte[] bad = good.clone();
        bad[bit / 8] ^= (byte) (1 << (bit % 8));
        assertThat(RefCodec.isRef(bad)).as("bit %d of %s", bit, ref).isFalse();
        try {
          ClaimRef decoded = RefCodec.decode(bad);
          fail("bit %d flipped in %s decoded into %s", bit, ref, decoded);
        } catch (MalformedRefException e) {
          assertThat(e.reason())
              .isIn(Reason.BAD_MAGIC, Reason.BAD_CRC, Reason.TRUNCATED, Reason.TRAILING_BYTES);
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
          .isInstanceOfSatisfying(
              MalformedRefException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
    }
  }

  @Test
  void trailingBytesAreRejected() {
    byte[] good = RefCodec.encode(GOLDEN_REF);
    for (int extra = 1; extra <= 8; extra++) {
      byte[] longer = Arrays.copyOf(good, good.length + extra);
      assertThat(RefCodec.isRef(longer)).isFalse();
      assertThatThrownBy(() -> RefCodec.decode(longer))
          .isInstanceOfSatisfying(
              MalformedRefException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.TRAILING_BYTES));
    }
  }

  @Test
  void nonRefsAreRejectedAsBadMagic() {
    for (String s : new String[] {"{\"a\":1}", "hello", "\u0000\u0000\u0000\u0001xyzw"}) {
      assertThatThrownBy(() -> RefCodec.decode(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .isInstanceOfSatisfying(
              MalformedRefException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC));
    }
  }

  @Test
  void anIntactFrameOfAFutureVersionIsARefButUnknown() {
    byte[] future = frame(7, new byte[] {1, 2, 3});
    assertThat(RefCodec.isRef(future)).isTrue();
    assertThatThrownBy(() -> RefCodec.decode(future))
        .isInstanceOfSatisfying(
            MalformedRefException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_VERSION))
        .hasMessageContaining("version 7")
        .hasMessageContaining("upgrade the reader");
    assertThatThrownBy(() -> RefCodec.decode(frame(0, new byte[0])))
        .isInstanceOfSatisfying(
            MalformedRefException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_VERSION));
  }

  @Test
  void anIntactVersionOneFrameWithBadFieldsIsRejected() {
    byte[] body =
        Arrays.copyOfRange(GOLDEN_V1, RefCodec.FRAME_HEAD, GOLDEN_V1.length - RefCodec.FRAME_TAIL);
    assertBadField(withByte(body, 1, 'A')); // upper case in the tenant
    assertBadField(withByte(body, 1, '/')); // path character in the tenant
    assertBadField(withByte(body, 1, 0xC3)); // non-ASCII in the tenant
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
  void anUnknownCodecInAnIntactRefAsksForAnUpgrade() {
    byte[] v1Body =
        Arrays.copyOfRange(GOLDEN_V1, RefCodec.FRAME_HEAD, GOLDEN_V1.length - RefCodec.FRAME_TAIL);
    byte[] v2Body =
        Arrays.copyOfRange(GOLDEN_V2, RefCodec.FRAME_HEAD, GOLDEN_V2.length - RefCodec.FRAME_TAIL);
    for (int codecId : new int[] {5, 9, 255}) {
      assertUnknownCodec(frame(1, withByte(v1Body, v1Body.length - 1, codecId)), codecId);
      assertUnknownCodec(frame(2, withByte(v2Body, v2Body.length - 5, codecId)), codecId);
    }
  }

  @Test
  void anIntactVersionTwoFrameWithBadFieldsIsRejected() {
    byte[] body =
        Arrays.copyOfRange(GOLDEN_V2, RefCodec.FRAME_HEAD, GOLDEN_V2.length - RefCodec.FRAME_TAIL);
    assertBadField(2, withInt(body, body.length - 4, -1)); // negative raw length
    assertBadField(2, Arrays.copyOf(body, body.length - 4)); // a version-1 body under version 2
    assertBadField(2, Arrays.copyOf(body, body.length + 1)); // one byte too many
    assertBadField(2, withByte(body, 1, 'A')); // upper case in the tenant
    // Uncompressed, the raw length must be the stored length.
    byte[] none = withByte(body, body.length - 5, 0);
    assertBadField(2, none);
    ClaimRef sameLength = RefCodec.decode(frame(2, withInt(none, none.length - 4, 1_048_576)));
    assertThat(sameLength.rawLength()).isEqualTo(sameLength.length());
    // A version-1 frame holding a version-2 body is refused too.
    assertBadField(1, body);
  }

  @Test
  void encodeOutputIsFreshEachTime() {
    byte[] a = RefCodec.encode(GOLDEN_REF);
    a[10] = 0;
    assertThat(RefCodec.encode(GOLDEN_REF)).containsExactly(GOLDEN_V1);
  }

  private static void assertUnknownCodec(byte[] bytes, int codecId) {
    assertThat(RefCodec.isRef(bytes)).isTrue();
    assertThatThrownBy(() -> RefCodec.decode(bytes))
        .isInstanceOfSatisfying(
            MalformedRefException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_CODEC);
              assertThat(e.needsNewerReader()).isTrue();
            })
        .hasMessageContaining("codec id " + codecId)
        .hasMessageContaining("upgrade the reader");
  }

  private static void assertBadField(byte[] body) {
    assertBadField(1, body);
  }

  private static void assertBadField(int version, byte[] body) {
    byte[] bytes = frame(version, body);
    assertThat(RefCodec.isRef(bytes)).isTrue();
    assertThatThrownBy(() -> RefCodec.decode(bytes))
        .isInstanceOfSatisfying(
            MalformedRefException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_FIELD));
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
