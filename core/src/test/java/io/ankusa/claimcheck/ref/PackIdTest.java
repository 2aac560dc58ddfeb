package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PackIdTest {

  @Test
  void hexIsSixteenLowercaseZeroPaddedDigits() {
    assertThat(new PackId(0).hex()).isEqualTo("0000000000000000");
    assertThat(new PackId(1).hex()).isEqualTo("0000000000000001");
    assertThat(new PackId(-1).hex()).isEqualTo("ffffffffffffffff");
    assertThat(new PackId(0x0123456789abcdefL).hex()).isEqualTo("0123456789abcdef");
    assertThat(new PackId(Long.MIN_VALUE)).hasToString("8000000000000000");
  }

  @Test
  void hexRoundTripsAndMatchesLongToHexString() {
    Random random = new Random(7);
    for (int i = 0; i < 10_000; i++) {
      long v = random.nextLong();
      PackId id = new PackId(v);
      assertThat(id.hex()).isEqualTo(String.format("%016x", v));
      assertThat(PackId.parseHex(id.hex())).isEqualTo(id);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "0",
        "000000000000000",
        "00000000000000000",
        "0123456789ABCDEF",
        "0123456789abcdeg",
        "-123456789abcdef",
        "+123456789abcdef",
        "0x23456789abcdef",
        " 123456789abcdef",
        "0123456789abcde ",
        "../../etc/passw",
        "0123456789abcd/f",
        "0123456789abcd\u0661f"
      })
  void parseHexIsStrict(String hex) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> PackId.parseHex(hex))
        .withMessageContaining("\"" + hex + "\"");
  }

  @Test
  void randomDrawsFromTheGivenGenerator() {
    assertThat(PackId.random(new SplittableRandom(3)))
        .isEqualTo(new PackId(new SplittableRandom(3).nextLong()));
    Set<PackId> seen = new HashSet<>();
    SecureRandom secure = new SecureRandom();
    for (int i = 0; i < 1000; i++) {
      seen.add(PackId.random(secure));
    }
    assertThat(seen).hasSize(1000);
  }

  @Test
  void fromContentIsDeterministicAndPerTenant() {
    byte[] content = "hello".getBytes(StandardCharsets.UTF_8);
    Tenant acme = Tenant.of("acme");
    assertThat(PackId.fromContent(acme, content))
        .isEqualTo(PackId.fromContent(acme, content.clone()));
    assertThat(PackId.fromContent(acme, content))
        .isNotEqualTo(PackId.fromContent(Tenant.of("other"), content));
    assertThat(PackId.fromContent(acme, content))
        .isNotEqualTo(PackId.fromContent(acme, "hellp".getBytes(StandardCharsets.UTF_8)));
    // The separator keeps ("ab", "c") apart from ("a", "bc").
    assertThat(PackId.fromContent(Tenant.of("ab"), new byte[] {'c'}))
        .isNotEqualTo(PackId.fromContent(Tenant.of("a"), new byte[] {'b', 'c'}));
  }

  @Test
  void fromContentIsTheFirstEightBytesOfSha256OverTenantZeroContent() {
    // sha256("acme\0hello") = 2fbaa0c7b5d9a66f e2cb..., computed independently with Python's
    // hashlib: pinned, because keys derived from content must not change between releases.
    assertThat(PackId.fromContent(Tenant.of("acme"), "hello".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(PackId.parseHex("2fbaa0c7b5d9a66f"));
  }
}
