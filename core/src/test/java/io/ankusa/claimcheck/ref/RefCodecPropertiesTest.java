package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Fuzzes the ref decoder: whatever the bytes, {@link RefCodec#decode} answers with a typed {@link
 * MalformedRefException} or a ref that re-encodes to exactly those bytes, and {@link
 * RefCodec#isRef} agrees with it; never another exception. The number of inputs per property is
 * {@code jqwik.tries.default} (1000 in the build; see junit-platform.properties for a long run).
 */
class RefCodecPropertiesTest {

  /** The reasons that mean "not an intact frame": exactly the inputs isRef rejects. */
  private static final Set<Reason> FRAME_REASONS =
      EnumSet.of(Reason.BAD_MAGIC, Reason.TRUNCATED, Reason.TRAILING_BYTES, Reason.BAD_CRC);

  @Property
  void arbitraryBytesDecodeToATypedErrorOrTheSameBytes(@ForAll @Size(max = 120) byte[] bytes) {
    check(bytes);
  }

  @Property
  void bytesAfterTheMagicDecodeToATypedErrorOrTheSameBytes(@ForAll @Size(max = 110) byte[] tail) {
    check(concat(RefCodec.MAGIC, tail));
  }

  /** Intact frames (magic, length and CRC right) around arbitrary versions and bodies. */
  @Property
  void intactFramesAroundArbitraryBodiesDecodeToATypedErrorOrTheSameBytes(
      @ForAll @IntRange(min = 0, max = 255) int version, @ForAll @Size(max = 255) byte[] body) {
    byte[] frame = RefCodecTest.frame(version, body);
    assertThat(RefCodec.isRef(frame)).isTrue();
    Object outcome = check(frame);
    if (outcome instanceof MalformedRefException e) {
      assertThat(e.reason()).isNotIn(FRAME_REASONS);
      assertThat(e.reason() == Reason.UNKNOWN_VERSION)
          .isEqualTo(version < 1 || version > ClaimRef.CURRENT_VERSION);
    }
  }

  /** A valid ref of either version with one body byte changed and the CRC recomputed. */
  @Property
  void validRefsWithOneFieldChangedDecodeToATypedErrorOrTheSameBytes(
      @ForAll("refs") ClaimRef ref,
      @ForAll @IntRange(min = 0, max = 1000) int where,
      @ForAll byte value) {
    byte[] good = RefCodec.encode(ref);
    byte[] body =
        java.util.Arrays.copyOfRange(good, RefCodec.FRAME_HEAD, good.length - RefCodec.FRAME_TAIL);
    body[where % body.length] = value;
    Object outcome = check(RefCodecTest.frame(ref.version(), body));
    if (outcome instanceof MalformedRefException e) {
      assertThat(e.reason()).isIn(Reason.BAD_FIELD, Reason.UNKNOWN_CODEC);
    }
  }

  /** A valid ref with any one bit of the frame flipped is never read as a ref. */
  @Property
  void validRefsWithABitFlippedAreRejected(
      @ForAll("refs") ClaimRef ref, @ForAll @IntRange(min = 0, max = 10_000) int bit) {
    byte[] bad = RefCodec.encode(ref);
    int at = bit % (bad.length * 8);
    bad[at / 8] ^= (byte) (1 << (at % 8));
    assertThat(RefCodec.isRef(bad)).isFalse();
    assertThat(check(bad))
        .isInstanceOfSatisfying(
            MalformedRefException.class, e -> assertThat(e.reason()).isIn(FRAME_REASONS));
  }

  @Property
  void validRefsRoundTrip(@ForAll("refs") ClaimRef ref) {
    byte[] bytes = RefCodec.encode(ref);
    assertThat(bytes.length)
        .isLessThanOrEqualTo(ref.isStreamed() ? RefCodec.MAX_V4_LENGTH : RefCodec.MAX_V2_LENGTH);
    assertThat(RefCodec.decode(bytes)).isEqualTo(ref);
  }

  /** Refs of every version: packed (v1, v2, v3 encrypted) and streamed (v4, 64-bit lengths). */
  @Provide
  Arbitrary<ClaimRef> refs() {
    return Arbitraries.longs()
        .map(seed -> seed % 3 == 0 ? streamed(new Random(seed)) : Fixtures.ref(new Random(seed)));
  }

  /** A streamed claim's ref of random fields, lengths anywhere in 64 bits. */
  static ClaimRef streamed(Random r) {
    Codec codec = r.nextBoolean() ? Codec.NONE : Codec.values()[r.nextInt(Codec.values().length)];
    long length = 1 + (r.nextLong() >>> (1 + r.nextInt(63)));
    long raw = codec == Codec.NONE ? length : r.nextLong() >>> (1 + r.nextInt(63));
    String tenant = "t" + Long.toString(r.nextLong() >>> 1, 36).substring(0, 1 + r.nextInt(6));
    return ClaimRef.streamed(
        Tenant.of(tenant), new PackId(r.nextLong()), length, r.nextInt(), codec, raw);
  }

  /**
   * Decodes {@code bytes} and checks the contract; returns the ref or the exception. Anything but a
   * {@link MalformedRefException} propagates and fails the property.
   */
  static Object check(byte[] bytes) {
    boolean isRef = RefCodec.isRef(bytes);
    try {
      ClaimRef ref = RefCodec.decode(bytes.clone());
      assertThat(RefCodec.encode(ref)).isEqualTo(bytes);
      assertThat(isRef).isTrue();
      return ref;
    } catch (MalformedRefException e) {
      assertThat(FRAME_REASONS.contains(e.reason())).isEqualTo(!isRef);
      assertThat(e.getMessage()).isNotBlank();
      if (e.needsNewerReader()) {
        assertThat(e.getMessage()).contains("upgrade the reader");
      }
      return e;
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
