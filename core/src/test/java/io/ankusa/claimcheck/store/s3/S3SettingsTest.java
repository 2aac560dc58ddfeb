package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * An S3 store's settings as the configuration makes them: parsed once, from the store's URI and its
 * {@code claimcheck.*} keys, every bad value refused when the configuration is built naming the
 * key.
 */
class S3SettingsTest {

  private static Map<String, Object> config(String store, String... kv) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", store);
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static S3Settings settings(String store, String... kv) {
    return S3TestStores.settings(config(store, kv));
  }

  private static void refused(String key, String store, String... kv) {
    assertThatThrownBy(() -> settings(store, kv))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void bucketAndANormalizedPrefixMakeTheLocation() {
    assertThat(settings("s3://claims").prefix()).isEmpty();
    assertThat(settings("s3://claims/").prefix()).isEmpty();
    S3Settings s = settings("s3://claims/tenant-a/packs");
    assertThat(s.bucket()).isEqualTo("claims");
    assertThat(s.prefix()).isEqualTo("tenant-a/packs/");
    assertThat(s.location()).isEqualTo("s3://claims/tenant-a/packs");
    assertThat(settings("s3://bkt/p/").prefix()).isEqualTo("p/");
    assertThat(settings("s3://bkt").location()).isEqualTo("s3://bkt");
  }

  @Test
  void defaults() {
    S3Settings s = settings("s3://bkt");
    assertThat(s.endpoint()).isEmpty();
    assertThat(s.region()).contains("us-east-1");
    assertThat(s.accessKeyId()).isEmpty();
    assertThat(s.secretAccessKey()).isEmpty();
    assertThat(s.pathStyleAccess()).isFalse();
    assertThat(s.operationTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.maxConnections()).isEqualTo(128);
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.connectionAcquisitionTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.multipartThreshold()).isEqualTo(16 << 20);
    assertThat(s.partSize()).isEqualTo(8 << 20);
    assertThat(
            settings("s3://bkt", "claimcheck.s3.connect.timeout.ms", "250")
                .connectionAcquisitionTimeout())
        .isEqualTo(Duration.ofMillis(1250));
  }

  @Test
  void invalidValuesAreRefusedNamingTheKey() {
    refused("claimcheck.stores", "s3://Not_A_Bucket");
    refused("claimcheck.stores", "s3://bkt/a/../b");
    assertThatThrownBy(() -> settings("s3://bkt/a/./b"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.stores")
        .hasMessageContaining("prefix");
    refused("claimcheck.stores", "s3://bkt?x=1");
    refused("claimcheck.s3.endpoint", "s3://bkt", "claimcheck.s3.endpoint", "ftp://x");
    refused("claimcheck.s3.endpoint", "s3://bkt", "claimcheck.s3.endpoint", "localhost:9000");
    refused("claimcheck.store.0.s3.endpoint", "s3://bkt", "claimcheck.store.0.s3.endpoint", "x:y");
    refused("claimcheck.store.op.deadline.ms", "s3://bkt", "claimcheck.store.op.deadline.ms", "0");
    refused("claimcheck.s3.max.connections", "s3://bkt", "claimcheck.s3.max.connections", "0");
    refused(
        "claimcheck.s3.connect.timeout.ms", "s3://bkt", "claimcheck.s3.connect.timeout.ms", "0");
    refused(
        "claimcheck.s3.multipart.part.bytes",
        "s3://bkt",
        "claimcheck.s3.multipart.part.bytes",
        String.valueOf(S3StoreProvider.MIN_PART_SIZE - 1));
    refused(
        "claimcheck.store.0.s3.multipart.threshold.bytes",
        "s3://bkt",
        "claimcheck.store.0.s3.multipart.threshold.bytes",
        String.valueOf(9 << 20),
        "claimcheck.s3.multipart.part.bytes",
        String.valueOf(9 << 20));
  }

  @Test
  void credentialsComeInPairs() {
    assertThatThrownBy(() -> settings("s3://bkt", "claimcheck.s3.access.key.id", "id"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.s3.access.key.id")
        .hasMessageContaining("give both");
    assertThatThrownBy(() -> settings("s3://bkt", "claimcheck.s3.secret.access.key", "s3cr3t-v"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.s3.secret.access.key")
        .hasMessageNotContaining("s3cr3t-v");
    assertThatThrownBy(
            () ->
                settings(
                    "s3://bkt",
                    "claimcheck.s3.access.key.id",
                    "id",
                    "claimcheck.s3.secret.access.key",
                    " "))
        .isInstanceOf(ConfigException.class);
    S3Settings s =
        settings(
            "s3://bkt",
            "claimcheck.s3.access.key.id",
            "id",
            "claimcheck.s3.secret.access.key",
            "s3cr3t");
    assertThat(s.accessKeyId()).hasValue("id");
    assertThat(s.secretAccessKey()).hasValue("s3cr3t");
  }

  @Test
  void toStringNeverShowsTheSecret() {
    S3Settings s =
        settings(
            "s3://bkt/p",
            "claimcheck.s3.endpoint",
            "http://127.0.0.1:9000",
            "claimcheck.s3.region",
            "eu-west-1",
            "claimcheck.s3.access.key.id",
            "AKIDEXAMPLE",
            "claimcheck.s3.secret.access.key",
            "wJalrXUtnFEMI-very-secret");
    assertThat(s.endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(s.toString())
        .contains("s3://bkt/p", "AKIDEXAMPLE", "eu-west-1", "http://127.0.0.1:9000")
        .doesNotContain("wJalrXUtnFEMI-very-secret");
  }

  @Test
  void theHttpClientIsNettyByDefaultCrtWhenChosenAndNothingElse() {
    assertThat(settings("s3://bkt").httpClient()).isEqualTo("netty");
    S3Settings crt = settings("s3://bkt", "claimcheck.s3.http.client", " CRT ");
    assertThat(crt.httpClient()).isEqualTo("crt");
    assertThat(crt.toString()).contains("httpClient=crt");
    refused("claimcheck.s3.http.client", "s3://bkt", "claimcheck.s3.http.client", "apache5");
  }
}
