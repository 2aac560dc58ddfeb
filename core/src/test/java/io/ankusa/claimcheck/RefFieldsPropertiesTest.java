package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Fixtures;
import io.ankusa.claimcheck.ref.RefCodec;
import java.nio.ByteBuffer;
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
 * The detection rule of {@link RefFields} over arbitrary fields, marked or not: the bytes decide
 * (issue 15). A field without the ref magic is inline whatever the marker says, an intact ref is a
 * ref whatever the marker says, the array and buffer overloads agree, and what a surface then
 * answers is one of: inline, the ref, {@code REFUSED} only for a marked field that starts with the
 * magic, {@code UNAVAILABLE} only for an intact frame of an unknown version.
 */
class RefFieldsPropertiesTest {

  @Property
  void aFieldWithoutTheMagicIsInlineMarkedOrNot(
      @ForAll @Size(max = 400) byte[] bytes, @ForAll boolean marked) {
    boolean magic = bytes.length >= 4 && Arrays.equals(bytes, 0, 4, RefCodec.MAGIC, 0, 4);
    if (!magic) {
      assertThat(RefFields.carriesRef(marked, bytes)).isFalse();
    }
    check(marked, bytes);
  }

  @Property
  void aFieldAfterTheMagicIsARefOnlyWhenMarkedOrIntact(
      @ForAll @Size(max = 300) byte[] tail, @ForAll boolean marked) {
    byte[] bytes = concat(RefCodec.MAGIC, tail);
    assertThat(RefFields.carriesRef(marked, bytes)).isEqualTo(marked || RefCodec.isRef(bytes));
    check(marked, bytes);
  }

  @Property
  void anIntactRefIsARefMarkedOrNotAndDecodesToItself(
      @ForAll("refs") ClaimRef ref, @ForAll boolean marked) {
    byte[] bytes = RefCodec.encode(ref);
    assertThat(RefFields.carriesRef(marked, bytes)).isTrue();
    assertThat(RefFields.carriesRef(marked, ByteBuffer.wrap(bytes))).isTrue();
    assertThat(RefFields.decode(bytes, false)).isEqualTo(ref);
  }

  /** A real ref with one byte changed: never decoded to another ref, REFUSED only when marked. */
  @Property
  void aDamagedRefIsRefusedWhenMarkedAndInlineWhenNot(
      @ForAll("refs") ClaimRef ref,
      @ForAll @IntRange(min = 4, max = 1000) int where,
      @ForAll byte delta,
      @ForAll boolean marked) {
    byte[] bytes = RefCodec.encode(ref);
    int at = 4 + where % (bytes.length - 4); // the magic intact
    bytes[at] += delta == 0 ? 1 : delta;
    Object outcome = check(marked, bytes);
    if (!RefCodec.isRef(bytes)) {
      assertThat(outcome).isEqualTo(marked ? Reason.REFUSED : "inline");
    }
  }

  /** A field that follows a ref (a Change's other value, a wrapper's other part): inline. */
  @Property
  void aMarkedFieldThatIsARefsNeighbourIsInline(
      @ForAll("refs") ClaimRef ref, @ForAll @Size(min = 1, max = 64) byte[] prefix) {
    prefix[0] |= 1; // the magic starts with 0x00: the neighbour does not
    byte[] neighbour = concat(prefix, RefCodec.encode(ref));
    assertThat(check(true, neighbour)).isEqualTo("inline");
  }

  @Provide
  Arbitrary<ClaimRef> refs() {
    return Arbitraries.longs().map(seed -> Fixtures.ref(new Random(seed)));
  }

  /**
   * What a surface answers for the field: "inline", the decoded ref, or the failure's reason; and
   * the contract between them. Anything but a {@link ClaimCheckFailure} fails the property.
   */
  private static Object check(boolean marked, byte[] bytes) {
    boolean carries = RefFields.carriesRef(marked, bytes);
    ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 2).put((byte) 7).put(bytes);
    buffer.position(1).limit(1 + bytes.length);
    assertThat(RefFields.carriesRef(marked, buffer)).isEqualTo(carries);
    assertThat(buffer.position()).isEqualTo(1);
    if (!carries) {
      return "inline";
    }
    assertThat(Arrays.equals(bytes, 0, 4, RefCodec.MAGIC, 0, 4)).isTrue();
    try {
      ClaimRef ref = RefFields.decode(bytes, false);
      assertThat(RefCodec.encode(ref)).isEqualTo(bytes);
      return ref;
    } catch (ClaimCheckFailure f) {
      if (f.reason() == Reason.REFUSED) {
        assertThat(marked || RefCodec.isRef(bytes))
            .as("REFUSED only for a marked field or an intact frame with a bad body")
            .isTrue();
      } else {
        assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
        assertThat(RefCodec.isRef(bytes)).as("upgrade the reader: an intact frame").isTrue();
        assertThat(f.getMessage()).contains("upgrade the reader");
      }
      return f.reason();
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
