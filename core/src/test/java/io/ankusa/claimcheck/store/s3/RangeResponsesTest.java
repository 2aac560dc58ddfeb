package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RangeResponsesTest {

  private static final byte[] WHOLE = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

  @Test
  void aMatchingPartialAnswerIsReturnedAsIs() {
    byte[] part = {3, 4, 5};
    assertThat(RangeResponses.slice(206, part, "bytes 3-5/10", 3L, 3, 3)).isSameAs(part);
    assertThat(RangeResponses.slice(206, new byte[] {8, 9}, "bytes 8-9/10", null, 8, 5))
        .containsExactly(8, 9);
    assertThat(RangeResponses.slice(206, new byte[] {9}, "bytes 9-9/10", 1L, 9, 1))
        .containsExactly(9);
  }

  @Test
  void a200IsTheWholeObjectCutToTheRange() {
    assertThat(RangeResponses.slice(200, WHOLE, null, 10L, 3, 3)).containsExactly(3, 4, 5);
    assertThat(RangeResponses.slice(200, WHOLE, null, 10L, 8, 5)).containsExactly(8, 9);
    assertThat(RangeResponses.slice(200, WHOLE, null, 10L, 10, 5)).isEmpty();
    assertThat(RangeResponses.slice(200, WHOLE, null, 10L, 12, 5)).isEmpty();
    assertThat(RangeResponses.slice(200, WHOLE, null, null, 0, 10)).isSameAs(WHOLE);
  }

  @Test
  void a206WithoutContentRangeIsRefused() {
    assertThatThrownBy(() -> RangeResponses.slice(206, new byte[] {3, 4, 5}, null, 3L, 3, 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("without a Content-Range");
  }

  @Test
  void aPartialAnswerForAnotherRangeIsRefused() {
    assertThatThrownBy(
            () -> RangeResponses.slice(206, new byte[] {0, 1, 2}, "bytes 0-2/10", 3L, 3, 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bytes 0-2/10");
    // Starts right, but ends early although the object goes on.
    assertThatThrownBy(() -> RangeResponses.slice(206, new byte[] {3, 4}, "bytes 3-4/10", 2L, 3, 3))
        .isInstanceOf(IllegalStateException.class);
    // Ends past what was asked.
    assertThatThrownBy(() -> RangeResponses.slice(206, WHOLE, "bytes 0-9/10", 10L, 0, 3))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> RangeResponses.slice(206, WHOLE, "items 0-9", 10L, 0, 10))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> RangeResponses.slice(206, WHOLE, "bytes 0-9/5", 10L, 0, 10))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("inconsistent");
  }

  @Test
  void aBodyThatDisagreesWithItsHeadersIsRefused() {
    // Content-Range says three bytes, the body (and its Content-Length) two: cut short.
    assertThatThrownBy(() -> RangeResponses.slice(206, new byte[] {3, 4}, "bytes 3-5/10", 2L, 3, 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("announced 3 bytes but the body has 2");
    assertThatThrownBy(() -> RangeResponses.slice(200, new byte[] {0, 1}, null, 10L, 0, 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("announced 10 bytes");
  }

  @Test
  void otherStatusesAreNoAnswerToARange() {
    assertThatThrownBy(() -> RangeResponses.slice(204, new byte[0], null, 0L, 0, 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("HTTP 204");
  }
}
