package io.ankusa.claimcheck.store.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.store.ClaimStore;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * {@code abs://} is found by URI scheme ({@code ServiceLoader}, this module's services file), its
 * URI and settings are checked when the configuration is built, and no message shows a credential.
 */
class AzureStoreProviderTest {

  private static final String SECRET = "c2VjcmV0LWtleS1uZXZlci1zaG93bg==";

  private static ClaimCheckConfig config(String uri, String... settings) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, uri);
    for (int i = 0; i < settings.length; i += 2) {
      m.put("claimcheck.store.0." + settings[i], settings[i + 1]);
    }
    return new ClaimCheckConfig(m);
  }

  @Test
  void anAbsUriOpensAnAzureStoreDescribedWithoutItsCredential() {
    ClaimCheckConfig c =
        config(
            "abs://myaccount/claims/team-a",
            "abs.account.key",
            SECRET,
            "abs.endpoint",
            "http://127.0.0.1:1/myaccount");
    try (ClaimStore store = c.stores().get(0).open()) {
      assertThat(store.describe()).isEqualTo("abs://myaccount/claims/team-a/");
      assertThat(store.toString()).doesNotContain(SECRET);
    }
    assertThat(c.toString()).doesNotContain(SECRET);
    assertThat(String.valueOf(c.stores().get(0))).doesNotContain(SECRET);
  }

  @Test
  void badUrisFailUnderTheStoresKey() {
    for (String uri :
        new String[] {
          "abs://myaccount", // no container
          "abs://MyAccount/claims", // upper case account
          "abs://myaccount/Claims", // upper case container
          "abs://myaccount/a", // too short
          "abs://user:pw@myaccount/claims", // user info
          "abs://myaccount/claims?sv=x", // a SAS in the URI
        }) {
      assertThatThrownBy(() -> config(uri), uri)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(ClaimCheckConfig.STORES)
          .hasMessageNotContaining("pw");
    }
  }

  @Test
  void aKeyAndAConnectionStringTogetherFailNamingTheKeyWithoutShowingEither() {
    assertThatThrownBy(
            () ->
                config(
                    "abs://myaccount/claims",
                    "abs.account.key",
                    SECRET,
                    "abs.connection.string",
                    "AccountKey=" + SECRET))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.abs.connection.string")
        .hasMessageNotContaining(SECRET);
    assertThatThrownBy(
            () -> config("abs://myaccount/claims", "abs.endpoint", "http://u:" + SECRET + "@h/x"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.abs.endpoint")
        .hasMessageNotContaining(SECRET);
    assertThatThrownBy(
            () ->
                config(
                    "abs://myaccount/claims",
                    "abs.block.threshold.bytes",
                    "1000",
                    "abs.block.bytes",
                    "1000"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.abs.block.threshold.bytes");
  }

  @Test
  void retryAfterInSecondsOnly() {
    assertThat(AzureFailures.parseRetryAfter(" 12 ")).contains(java.time.Duration.ofSeconds(12));
    assertThat(AzureFailures.parseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT")).isEmpty();
    assertThat(AzureFailures.parseRetryAfter("-1")).isEmpty();
  }
}
