package io.ankusa.claimcheck.internal.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Fuzzes decompression for every codec: random bytes, bytes behind each codec's own header, and
 * valid streams damaged (a byte changed, cut, spliced) inflate to a bounded result or fail with a
 * {@link CorruptPackException}; never another exception, never more than the bound.
 */
class DecompressionPropertiesTest {

  private static final Codec[] CODECS = {Codec.GZIP, Codec.SNAPPY, Codec.LZ4, Codec.ZSTD};

  /** A small limit, so a property can tell "bounded" from "unbounded" cheaply. */
  private static final int LIMIT = 1 << 20;

  @Property
  void randomBytesInflateBoundedOrFailTyped(
      @ForAll("codecs") Codec codec,
      @ForAll @Size(max = 2048) byte[] stored,
      @ForAll("rawLengths") int rawLength) {
    check(codec, stored, rawLength);
  }

  @Property
  void bytesBehindTheCodecsHeaderInflateBoundedOrFailTyped(
      @ForAll("codecs") Codec codec,
      @ForAll @Size(max = 2048) byte[] tail,
      @ForAll("rawLengths") int rawLength) {
    byte[] head = header(codec);
    byte[] stored = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, stored, head.length, tail.length);
    check(codec, stored, rawLength);
  }

  @Property
  void damagedValidStreamsInflateBoundedOrFailTyped(
      @ForAll("codecs") Codec codec,
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 3) int damage,
      @ForAll @IntRange(min = 0, max = 1_000_000) int where,
      @ForAll byte value) {
    Random random = new Random(seed);
    byte[] raw = new byte[random.nextInt(70_000)];
    if (random.nextBoolean()) {
      random.nextBytes(raw);
    } else {
      for (int i = 0; i < raw.length; i++) {
        raw[i] = (byte) ('a' + random.nextInt(4));
      }
    }
    byte[] stored = Compressor.compress(codec, raw);
    byte[] bad =
        switch (damage) {
          case 0 -> withByte(stored, where % Math.max(1, stored.length), value);
          case 1 -> Arrays.copyOf(stored, where % (stored.length + 1));
          case 2 ->
              splice(stored, Compressor.compress(codec, Arrays.copyOf(raw, raw.length / 2)), where);
          default -> stored;
        };
    int rawLength = random.nextBoolean() ? raw.length : ClaimRef.UNKNOWN_RAW_LENGTH;
    byte[] out = check(codec, bad, rawLength);
    if (damage == 3) {
      assertThat(out).isEqualTo(raw);
    }
  }

  /** A stream that inflates far past the bound stops at the bound, whatever the codec. */
  @Property(tries = 40)
  void streamsLargerThanTheBoundStopAtIt(
      @ForAll("codecs") Codec codec, @ForAll @IntRange(min = 1, max = 300_000) int bound) {
    byte[] stored = Compressor.compress(codec, new byte[bound + 1 + bound / 3]);
    assertThat(outcome(codec, stored, ClaimRef.UNKNOWN_RAW_LENGTH, bound))
        .isInstanceOfSatisfying(
            PastReadLimitException.class,
            e -> assertThat(e.getMessage()).contains("inflates past " + bound));
  }

  @Provide
  Arbitrary<Codec> codecs() {
    return Arbitraries.of(CODECS);
  }

  @Provide
  Arbitrary<Integer> rawLengths() {
    return Arbitraries.oneOf(
        Arbitraries.just(ClaimRef.UNKNOWN_RAW_LENGTH),
        Arbitraries.integers().between(0, 70_000),
        Arbitraries.just(LIMIT));
  }

  private static byte[] check(Codec codec, byte[] stored, int rawLength) {
    Object outcome = outcome(codec, stored, rawLength, LIMIT);
    if (outcome instanceof byte[] out) {
      if (rawLength == ClaimRef.UNKNOWN_RAW_LENGTH) {
        assertThat(out.length).isLessThanOrEqualTo(LIMIT);
      } else {
        assertThat(out).hasSize(rawLength);
      }
      return out;
    }
    assertThat(outcome).isInstanceOfAny(CorruptPackException.class, PastReadLimitException.class);
    if (outcome instanceof PastReadLimitException) {
      assertThat(rawLength).isEqualTo(ClaimRef.UNKNOWN_RAW_LENGTH);
    }
    return null;
  }

  /**
   * The result, the {@link CorruptPackException} or the {@link PastReadLimitException}; any other
   * throwable fails the property.
   */
  private static Object outcome(Codec codec, byte[] stored, int rawLength, int limit) {
    try {
      return Compressor.decompress(codec, stored, rawLength, limit);
    } catch (CorruptPackException | PastReadLimitException e) {
      assertThat(e.getMessage()).isNotBlank();
      return e;
    }
  }

  /** The first bytes each codec's stream starts with, so fuzzing reaches past the header check. */
  private static byte[] header(Codec codec) {
    byte[] valid = Compressor.compress(codec, new byte[0]);
    int keep =
        switch (codec) {
          case GZIP -> 10; // the gzip member header
          case SNAPPY -> 16; // snappy-java's stream header
          case LZ4 -> 7; // magic, FLG, BD, descriptor checksum
          default -> 6; // zstd magic and frame header
        };
    return Arrays.copyOf(valid, Math.min(keep, valid.length));
  }

  private static byte[] withByte(byte[] b, int at, byte value) {
    byte[] copy = b.clone();
    if (copy.length > 0) {
      copy[at] = value;
    }
    return copy;
  }

  private static byte[] splice(byte[] a, byte[] b, int where) {
    int cutA = where % (a.length + 1);
    int cutB = (where / 7) % (b.length + 1);
    byte[] out = Arrays.copyOf(a, cutA + b.length - cutB);
    System.arraycopy(b, cutB, out, cutA, b.length - cutB);
    return out;
  }
}
