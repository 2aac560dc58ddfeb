package io.ankusa.claimcheck.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.PlantedSecretTest;
import io.ankusa.claimcheck.store.ClaimStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gs://} is found by URI scheme ({@code ServiceLoader}, this module's services file), its
 * URI and settings are checked when the configuration is built, and no message shows a credential
 * (the planted-secret rule of core's {@link PlantedSecretTest}, for this store's keys).
 */
class GcsStoreProviderTest {

  private static final String SECRET = PlantedSecretTest.SECRET;

  private static ClaimCheckConfig config(String uri, String... settings) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, uri);
    for (int i = 0; i < settings.length; i += 2) {
      m.put("claimcheck.store.0." + settings[i], settings[i + 1]);
    }
    return new ClaimCheckConfig(m);
  }

  @Test
  void aGsUriOpensAGcsStoreDescribedWithoutItsCredential() {
    ClaimCheckConfig c =
        config(
            "gs://my-bucket/claims/team-a",
            "gcs.anonymous",
            "true",
            "gcs.endpoint",
            "http://127.0.0.1:1");
    try (ClaimStore store = c.stores().get(0).open()) {
      assertThat(store.describe()).isEqualTo("gs://my-bucket/claims/team-a/");
      assertThat(store).isInstanceOf(GcsClaimStore.class);
    }
    ClaimCheckConfig json =
        config("gs://my-bucket", "gcs.credentials.json", "{\"type\":\"" + SECRET + "\"}");
    assertThat(json.toString()).doesNotContain(SECRET);
    assertThat(String.valueOf(json.stores().get(0))).doesNotContain(SECRET);
  }

  @Test
  void unreadableCredentialsFailAtOpenWithoutShowingThem() {
    ClaimCheckConfig c =
        config(
            "gs://my-bucket",
            "gcs.credentials.json",
            "{\"type\":\"service_account\",\"private_key\":\"" + SECRET + "\"}",
            "gcs.endpoint",
            "http://127.0.0.1:1");
    assertThatThrownBy(() -> c.stores().get(0).open().close())
        .satisfies(e -> assertThat(PlantedSecretTest.printed(e)).doesNotContain(SECRET))
        .hasMessageContaining("gcs.credentials.json");
  }

  @Test
  void badUrisFailUnderTheStoresKeyWithoutShowingASecret() {
    for (String uri :
        new String[] {
          "gs://", // no bucket
          "gs://My-Bucket", // upper case
          "gs://ab", // too short
          "gs://-bucket", // bad start
          "gs://user:" + SECRET + "@my-bucket/claims", // user info
          "gs://my-bucket/claims?token=" + SECRET, // a query
          "gs://my-bucket/claims#" + SECRET, // a fragment
          "gs:my-bucket:" + SECRET, // opaque
        }) {
      assertThatThrownBy(() -> config(uri), uri)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(ClaimCheckConfig.STORES)
          .satisfies(e -> assertThat(PlantedSecretTest.printed(e)).doesNotContain(SECRET));
    }
  }

  @Test
  void badSettingsFailNamingTheKeyWithoutShowingASecret(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("sa.json"), "{\"private_key\":\"" + SECRET + "\"}");
    assertThatThrownBy(
            () ->
                config(
                    "gs://my-bucket",
                    "gcs.credentials.file",
                    file.toString(),
                    "gcs.credentials.json",
                    SECRET))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.gcs.credentials.json")
        .satisfies(e -> assertThat(PlantedSecretTest.printed(e)).doesNotContain(SECRET));
    assertThatThrownBy(() -> config("gs://my-bucket", "gcs.credentials.file", "{\"k\":\"" + SECRET))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.gcs.credentials.file")
        .satisfies(e -> assertThat(PlantedSecretTest.printed(e)).doesNotContain(SECRET));
    assertThatThrownBy(
            () -> config("gs://my-bucket", "gcs.anonymous", "true", "gcs.credentials.json", SECRET))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.gcs.anonymous")
        .satisfies(e -> assertThat(PlantedSecretTest.printed(e)).doesNotContain(SECRET));
    for (String endpoint :
        new String[] {
          "http://u:" + SECRET + "@h:1", "ftp://h", "http://h/storage/v1", "http://h?k=" + SECRET
        }) {
      assertThatThrownBy(() -> config("gs://my-bucket", "gcs.endpoint", endpoint), endpoint)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("claimcheck.store.0.gcs.endpoint")
          .satisfies(e -> assertThat(PlantedSecretTest.printed(e)).doesNotContain(SECRET));
    }
    assertThatThrownBy(() -> config("gs://my-bucket", "gcs.upload.chunk.bytes", "300000"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.gcs.upload.chunk.bytes");
    assertThatThrownBy(() -> config("gs://my-bucket", "gcs.upload.chunk.bytes", "1024"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.gcs.upload.chunk.bytes");
    assertThatThrownBy(() -> config("gs://my-bucket", "gcs.project.id", "Not A Project"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.gcs.project.id");
    assertThatThrownBy(() -> config("gs://my-bucket", "gcs.credentails.json", SECRET))
        .isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(PlantedSecretTest.printed(e)).doesNotContain(SECRET));
  }

  /**
   * A service-account key (made here: an RSA key, its token URI on a closed loopback port) read
   * from {@code gcs.credentials.file} or {@code gcs.credentials.json}: the store opens with it
   * (nothing is sent: a token is fetched at the first call), and its key shows nowhere.
   */
  @Test
  void aServiceAccountKeyOpensTheStoreFromAFileOrInline(@TempDir Path dir) throws Exception {
    java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    String pem =
        "-----BEGIN PRIVATE KEY-----\\n"
            + java.util.Base64.getEncoder()
                .encodeToString(g.generateKeyPair().getPrivate().getEncoded())
            + "\\n-----END PRIVATE KEY-----\\n";
    String json =
        "{\"type\":\"service_account\",\"project_id\":\"claimcheck-test\",\"private_key_id\":\""
            + SECRET
            + "\",\"private_key\":\""
            + pem
            + "\",\"client_email\":\"cc@claimcheck-test.iam.gserviceaccount.com\","
            + "\"client_id\":\"1\",\"token_uri\":\"http://127.0.0.1:1/token\"}";
    Path file = Files.writeString(dir.resolve("sa.json"), json);
    for (String[] setting :
        new String[][] {
          {"gcs.credentials.file", file.toString()}, {"gcs.credentials.json", json}
        }) {
      ClaimCheckConfig c =
          config("gs://my-bucket", setting[0], setting[1], "gcs.endpoint", "http://127.0.0.1:1");
      try (ClaimStore store = c.stores().get(0).open()) {
        assertThat(store.describe()).isEqualTo("gs://my-bucket");
        assertThat(store.toString()).doesNotContain(SECRET);
      }
      assertThat(c.toString()).doesNotContain(SECRET).doesNotContain("PRIVATE KEY");
    }
  }
}
