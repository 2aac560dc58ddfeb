package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TenantTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a",
        "acme",
        "acme-eu.payments_2",
        "0",
        "_x",
        "a.b.c",
        "a-",
        "a.",
        "0123456789012345678901234567890123456789"
      })
  void acceptsValidNames(String name) {
    Tenant tenant = Tenant.of(name);
    assertThat(tenant.value()).isEqualTo(name);
    assertThat(tenant).hasToString(name).isEqualTo(Tenant.of(name));
    assertThat(tenant.hashCode()).isEqualTo(Tenant.of(name).hashCode());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        ".",
        "..",
        "a..b",
        "...",
        ".a",
        "-a",
        "a/b",
        "/",
        "../x",
        "a\\b",
        "\\",
        "Acme",
        "ACME",
        "a b",
        " a",
        "a\n",
        "a\u0000",
        "ä",
        "a\u00e9",
        "\u0430cme",
        "a:b",
        "a*",
        "a%2f",
        "01234567890123456789012345678901234567890",
        "a~",
        "a@b",
        "a+b"
      })
  void rejectsInvalidNamesNamingThem(String name) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Tenant.of(name))
        .withMessageStartingWith("invalid tenant \"");
  }

  @Test
  void messageNamesThePrintableValue() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Tenant.of("Bad/Name"))
        .withMessageContaining("\"Bad/Name\"");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Tenant.of("a\nb"))
        .withMessageContaining("\"a\\u000ab\"");
  }

  @Test
  void rejectsNull() {
    assertThatNullPointerException().isThrownBy(() -> Tenant.of(null));
  }

  @Test
  void constructorValidatesToo() {
    assertThatIllegalArgumentException().isThrownBy(() -> new Tenant(".."));
  }
}
