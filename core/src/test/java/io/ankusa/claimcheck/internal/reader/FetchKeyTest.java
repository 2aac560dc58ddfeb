package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FetchKeyTest {

  @Test
  void keysOfTheSameReadAreEqualAndOthersAreNot() {
    assertThat(FetchKey.index("t", "ab")).isEqualTo(FetchKey.index("t", "ab"))
        .hasSameHashCodeAs(FetchKey.index("t", "ab"));
    assertThat(FetchKey.bytes("t", "ab", 1)).isEqualTo(FetchKey.bytes("t", "ab", 1));
    assertThat(FetchKey.range("t", "ab", 5, 10)).isEqualTo(FetchKey.range("t", "ab", 5, 10));
    assertThat(FetchKey.index("t", "ab")).isNotEqualTo(FetchKey.bytes("t", "ab", 0));
    assertThat(FetchKey.bytes("t", "ab", 0)).isNotEqualTo(FetchKey.bytes("t", "ab", 1));
    assertThat(FetchKey.bytes("t", "ab", 0)).isNotEqualTo(FetchKey.bytes("u", "ab", 0));
    assertThat(FetchKey.range("t", "ab", 5, 10)).isNotEqualTo(FetchKey.range("t", "ab", 5, 11));
  }

  @Test
  void invalidKeysAreRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> FetchKey.index("", "ab")).hasMessageContaining("tenant");
    assertThatThrownBy(() -> FetchKey.index("t", null)).hasMessageContaining("packIdHex");
    assertThatThrownBy(() -> FetchKey.bytes("t", "ab", -1)).hasMessageContaining("claimIndex=-1");
    assertThatThrownBy(() -> FetchKey.range("t", "ab", -1, 5)).hasMessageContaining("first=-1");
    assertThatThrownBy(() -> FetchKey.range("t", "ab", 0, 0)).hasMessageContaining("length=0");
    assertThatThrownBy(() -> new FetchKey(FetchKey.Kind.INDEX, "t", "ab", 2, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
