package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimRef#matches}: a store's bytes are the claim's only with the ref's length and CRC32C.
 */
class ClaimRefMatchesTest {

  private static int crc32c(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return (int) c.getValue();
  }

  @Test
  void onlyTheRefsLengthAndChecksumMatch() {
    byte[] stored = {1, 2, 3, 4, 5};
    ClaimRef ref =
        ClaimRef.of(
            Tenant.of("acme"),
            new ClaimId(new PackId(42), 0),
            10,
            stored.length,
            crc32c(stored),
            Codec.NONE);
    assertThat(ref.matches(stored)).isTrue();
    assertThat(ref.matches(new byte[] {1, 2, 3, 4, 6})).as("one bit off").isFalse();
    assertThat(ref.matches(new byte[] {1, 2, 3, 4})).as("short").isFalse();
    assertThat(ref.matches(new byte[] {1, 2, 3, 4, 5, 0})).as("long").isFalse();
  }
}
