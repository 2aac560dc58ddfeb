package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RangeResponsesTest {

  private static final byte[] WHOLE = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

  @Test
  void aMatchingPartialAnswerIsReturnedAsIs() {
    byte[] part = {3, 4, 5};
    assertThat(RangeResponses.slice(part, "bytes 3-5/10", 3, 3)).isSameAs(part);
    assertThat(RangeResponses.slice(new byte[] {8, 9}, "bytes 8-9/10", 8, 5)).containsExactly(8, 9);
  }

  @Test
  void aWholeObjectAnswerIsCutToTheRange() {
    assertThat(RangeResponses.slice(WHOLE, null, 3, 3)).containsExactly(3, 4, 5);
    assertThat(RangeResponses.slice(WHOLE, null, 8, 5)).containsExactly(8, 9);
    assertThat(RangeResponses.slice(WHOLE, null, 10, 5)).isEmpty();
    assertThat(RangeResponses.slice(WHOLE, null, 0, 10)).isSameAs(WHOLE);
  }

  @Test
  void aPartialAnswerForAnotherRangeIsRefused() {
    assertThatThrownBy(() -> RangeResponses.slice(new byte[] {0, 1, 2}, "bytes 0-2/10", 3, 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bytes 0-2/10");
    assertThatThrownBy(() -> RangeResponses.slice(WHOLE, "bytes 0-9/10", 0, 3))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> RangeResponses.slice(WHOLE, "items 0-9", 0, 10))
        .isInstanceOf(IllegalStateException.class);
  }
}
