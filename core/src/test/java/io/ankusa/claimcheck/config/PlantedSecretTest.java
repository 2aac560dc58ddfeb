package io.ankusa.claimcheck.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig.Secrets;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A secret planted under wrong, misspelt or odd keys never shows in a message, a cause or a {@code
 * toString}; the rule is {@link Secrets}'. The same maps are planted through the serde and the
 * transforms in their modules' {@code PlantedSecretTest}s.
 */
public class PlantedSecretTest {

  /** A value no message would contain by chance. */
  public static final String SECRET = "pl4nted-S3CRET-" + UUID.randomUUID();

  /** Configs that plant {@link #SECRET} where it does not belong; each must be refused. */
  public static Stream<Map<String, Object>> plantedAndRefused() {
    List<Map<String, Object>> cases = new ArrayList<>();
    cases.add(with("claimcheck.s3.secret.acces.key", SECRET)); // misspelt
    cases.add(with("claimcheck.s3.secretaccesskey", SECRET));
    cases.add(with("claimcheck.secret", SECRET));
    cases.add(with("claimcheck.password", new Password(SECRET)));
    cases.add(with("claimcheck.store.5.s3.secret.access.key", SECRET)); // no store 5
    cases.add(with("claimcheck.store.0.s3.secret.acces.key", SECRET)); // unknown per-store
    cases.add(with("claimcheck.store.0.token", SECRET));
    cases.add(with("claimcheck.store.x.s3.secret.access.key", SECRET)); // not an index
    cases.add(with("claimcheck.store.99999999999999999999.s3.secret.access.key", SECRET));
    cases.add(with("claimcheck.s3.access.key.id", SECRET)); // an id without its secret
    cases.add(with("claimcheck.store.0.s3.access.key.id", SECRET));
    cases.add(with("claimcheck.s3.secret.access.key", new Secretive())); // not a string
    for (String storeUri : storeUrisCarrying(SECRET)) {
      Map<String, Object> uri = base();
      uri.put("claimcheck.stores", "s3://bucket-a/p," + storeUri);
      cases.add(uri);
    }
    cases.add(with("claimcheck.s3.endpoint", "http://user:" + SECRET + "@127.0.0.1:9000"));
    cases.add(with("claimcheck.store.0.s3.endpoint", "http://user:" + SECRET + "@127.0.0.1:9000"));
    cases.add(with("claimcheck.s3.endpoint", "http://user:" + SECRET + "@bad host:9000"));
    return cases.stream();
  }

  /**
   * Store URIs that carry {@code secret} as a credential, in every form a user may write one:
   * hierarchical user info, the opaque and path forms that parse with no user info, malformed ones,
   * unknown schemes, a secret without an {@code @}; each must be refused without showing it (the
   * serde's and the transforms' {@code PlantedSecretTest}s plant them too).
   */
  public static List<String> storeUrisCarrying(String secret) {
    return List.of(
        "s3://AKIA0000:" + secret + "@bucket-a/p",
        "s3://AKIA0000:" + secret + "@bucket a/ p", // malformed
        "s3:AKIA0000:" + secret + "@bucket-a", // opaque: no parsed user info
        "s3:/AKIA0000:" + secret + "@bucket-a", // a path, no authority
        "s3:AKIA0000:" + secret + "@bucket a", // opaque and malformed
        "s3:AKIA0000:" + secret, // opaque, no '@'
        "s3:/AKIA0000:" + secret, // a path, no '@'
        "s3:///AKIA0000:" + secret + "/p", // an empty authority, the secret in the path
        "s3://bucket-a/p?secret=" + secret, // a query
        "file:///var/claims#" + secret, // a fragment
        "file:AKIA0000:" + secret + "@/var/claims",
        "memory:AKIA0000:" + secret + "@name",
        "kv:AKIA0000:" + secret + "@host", // no provider serves the scheme
        "kv:AKIA0000:" + secret, // no provider, no '@'
        "//AKIA0000:" + secret + "@bucket-a", // no scheme
        "/AKIA0000:" + secret, // no scheme, no '@'
        "AKIA0000:" + secret + "@bucket-a", // the id taken for a scheme
        "s3://AKIA0000:" + secret + "%40@bucket-a", // an escaped '@' inside
        " s3:AKIA0000:" + secret + "@bucket-a "); // blanks around
  }

  static Map<String, Object> base() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "s3://bucket-a/p,s3://bucket-b");
    m.put("claimcheck.s3.endpoint", "http://127.0.0.1:9000");
    return m;
  }

  static Map<String, Object> with(String key, Object value) {
    Map<String, Object> m = base();
    m.put(key, value);
    return m;
  }

  /** Everything a throwable would print: its toString, its causes' and suppressed ones'. */
  public static String printed(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c).append('\n');
      for (Throwable s : c.getSuppressed()) {
        b.append(printed(s));
      }
    }
    return b.toString();
  }

  @ParameterizedTest
  @MethodSource("plantedAndRefused")
  void theConfigRefusesItWithoutShowingTheSecret(Map<String, Object> config) {
    assertThatThrownBy(() -> new ClaimCheckConfig(config))
        .isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(printed(e)).doesNotContain(SECRET));
  }

  @ParameterizedTest
  @MethodSource("plantedAndRefused")
  void openingAClaimCheckRefusesItWithoutShowingTheSecret(Map<String, Object> config) {
    assertThatThrownBy(() -> ClaimCheck.open(config).close())
        .isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(printed(e)).doesNotContain(SECRET));
  }

  @org.junit.jupiter.api.Test
  void aValidConfigShowsNeitherTheSecretNorTheKeyIdInToString() {
    Map<String, Object> m = base();
    m.put("claimcheck.s3.access.key.id", "AKIA-" + SECRET);
    m.put("claimcheck.s3.secret.access.key", SECRET);
    m.put("claimcheck.store.1.s3.secret.access.key", "other-" + SECRET);
    m.put("claimcheck.store.1.s3.access.key.id", "AKIB-" + SECRET);
    ClaimCheckConfig c = new ClaimCheckConfig(m);
    assertThat(c.stores().get(0).toString()).doesNotContain(SECRET).contains("bucket-a");
    assertThat(c.stores().toString()).doesNotContain(SECRET);
    assertThat(c.toString()).doesNotContain(SECRET);
    assertThat(c.values().toString()).doesNotContain(SECRET);
    // ... while the settings themselves are there for the store to use.
    StoreSpec second = c.stores().get(1);
    assertThat(second.settings().getPassword("s3.secret.access.key").value())
        .isEqualTo("other-" + SECRET);
    assertThat(second.settings().getPassword("s3.access.key.id").value())
        .isEqualTo("AKIB-" + SECRET);
  }

  @org.junit.jupiter.api.Test
  void anUnknownKeyIsRefusedByName() {
    assertThatThrownBy(() -> ClaimCheck.open(with("claimcheck.tenat", "acme")).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.tenat")
        .hasMessageNotContaining("acme");
  }

  /** A value that is not a string, whose {@code toString} is the secret. */
  static final class Secretive {
    @Override
    public String toString() {
      return SECRET;
    }
  }
}
