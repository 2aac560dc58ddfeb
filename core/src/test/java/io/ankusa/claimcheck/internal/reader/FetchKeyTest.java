package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FetchKeyTest {

  @Test
  void keysOfTheSameReadAreEqualAndOthersAreNot() {
    assertThat(FetchKey.range("t", "ab", 5, 10))
        .isEqualTo(FetchKey.range("t", "ab", 5, 10))
        .hasSameHashCodeAs(FetchKey.range("t", "ab", 5, 10));
    assertThat(FetchKey.range("t", "ab", 5, 10))
        .isEqualTo(new FetchKey(new String("t"), new String("ab"), 5, 10));
    assertThat(FetchKey.range("t", "ab", 5, 10)).isNotEqualTo(FetchKey.range("t", "ab", 5, 11));
    assertThat(FetchKey.range("t", "ab", 5, 10)).isNotEqualTo(FetchKey.range("t", "ab", 6, 10));
    assertThat(FetchKey.range("t", "ab", 5, 10)).isNotEqualTo(FetchKey.range("t", "ac", 5, 10));
    assertThat(FetchKey.range("t", "ab", 5, 10)).isNotEqualTo(FetchKey.range("u", "ab", 5, 10));
  }

  @Test
  void invalidKeysAreRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> FetchKey.range("", "ab", 0, 1)).hasMessageContaining("tenant");
    assertThatThrownBy(() -> FetchKey.range(null, "ab", 0, 1)).hasMessageContaining("tenant");
    assertThatThrownBy(() -> FetchKey.range("t", null, 0, 1)).hasMessageContaining("packIdHex");
    assertThatThrownBy(() -> FetchKey.range("t", "", 0, 1)).hasMessageContaining("packIdHex");
    assertThatThrownBy(() -> FetchKey.range("t", "ab", -1, 5)).hasMessageContaining("first=-1");
    assertThatThrownBy(() -> FetchKey.range("t", "ab", 0, 0)).hasMessageContaining("length=0");
    assertThatThrownBy(() -> FetchKey.range("t", "ab", 0, -3)).hasMessageContaining("length=-3");
    assertThat(FetchKey.range("t", "ab", 0, 1).first()).as("a range may start at byte 0").isZero();
  }
}
