package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** {@code Range: bytes=…} against a claim's length. */
class ByteRangeTest {

  private static ByteRange part(String h, long size) {
    return ((ByteRange.Part) ByteRange.parse(h, size)).range();
  }

  @Test
  void theThreeFormsOfOneRange() {
    assertThat(part("bytes=0-9", 100)).isEqualTo(new ByteRange(0, 9));
    assertThat(part("bytes=90-", 100)).isEqualTo(new ByteRange(90, 99));
    assertThat(part("bytes=-10", 100)).isEqualTo(new ByteRange(90, 99));
    assertThat(part("bytes=-1000", 100)).isEqualTo(new ByteRange(0, 99));
    assertThat(part("bytes=50-5000", 100)).isEqualTo(new ByteRange(50, 99));
  }

  @Test
  void outsideTheClaimIsUnsatisfiableAndSeveralRangesAreServedWhole() {
    assertThat(ByteRange.parse("bytes=100-", 100)).isInstanceOf(ByteRange.Unsatisfiable.class);
    assertThat(ByteRange.parse("bytes=100-200", 100)).isInstanceOf(ByteRange.Unsatisfiable.class);
    assertThat(ByteRange.parse("bytes=-0", 100)).isInstanceOf(ByteRange.Unsatisfiable.class);
    assertThat(ByteRange.parse("bytes=0-1,5-6", 100)).isInstanceOf(ByteRange.Whole.class);
    assertThat(ByteRange.parse(null, 100)).isInstanceOf(ByteRange.Whole.class);
  }

  @Test
  void malformedRangesAreRefused() {
    for (String h : new String[] {"items=0-1", "bytes=", "bytes=a-b", "bytes=5-1", "bytes=+1-2"}) {
      assertThatThrownBy(() -> ByteRange.parse(h, 100)).isInstanceOf(ByteRange.BadRange.class);
    }
  }

  @Property
  void anyHeaderIsAPartInsideTheClaimOrATypedAnswer(
      @ForAll String header, @ForAll @LongRange(min = 1, max = 1L << 40) long size) {
    try {
      ByteRange.Ask a = ByteRange.parse(header, size);
      if (a instanceof ByteRange.Part p) {
        assertThat(p.range().first()).isBetween(0L, size - 1);
        assertThat(p.range().last()).isBetween(p.range().first(), size - 1);
      }
    } catch (ByteRange.BadRange expected) {
      // a typed refusal: 416
    }
  }

  @Property
  void anyWellFormedRangeStaysInsideTheClaim(
      @ForAll @LongRange(min = 0, max = 1000) long first,
      @ForAll @LongRange(min = 0, max = 1000) long length,
      @ForAll @LongRange(min = 1, max = 1000) long size) {
    ByteRange.Ask a = ByteRange.parse("bytes=" + first + "-" + (first + length), size);
    if (first >= size) {
      assertThat(a).isInstanceOf(ByteRange.Unsatisfiable.class);
    } else {
      ByteRange r = ((ByteRange.Part) a).range();
      assertThat(r.last()).isEqualTo(Math.min(first + length, size - 1));
    }
  }
}
