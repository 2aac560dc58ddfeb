package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class S3StoreSettingsTest {

  @Test
  void bucketAndANormalizedPrefixMakeTheLocation() {
    assertThat(S3StoreSettings.builder().bucket("claims").build().prefix()).isEmpty();
    assertThat(S3StoreSettings.builder().bucket("claims").prefix("").build().prefix()).isEmpty();
    S3StoreSettings s = S3StoreSettings.builder().bucket("claims").prefix("tenant-a/packs").build();
    assertThat(s.bucket()).isEqualTo("claims");
    assertThat(s.prefix()).isEqualTo("tenant-a/packs/");
    assertThat(s.location()).isEqualTo("s3://claims/tenant-a/packs");
    assertThat(S3StoreSettings.builder().bucket("b").prefix("/p/").build().prefix())
        .isEqualTo("p/");
    assertThat(S3StoreSettings.builder().bucket("b").build().location()).isEqualTo("s3://b");
  }

  @Test
  void defaults() {
    S3StoreSettings s = S3StoreSettings.builder().bucket("b").build();
    assertThat(s.endpoint()).isEmpty();
    assertThat(s.region()).isEmpty();
    assertThat(s.accessKeyId()).isEmpty();
    assertThat(s.secretAccessKey()).isEmpty();
    assertThat(s.pathStyleAccess()).isFalse();
    assertThat(s.operationTimeout()).isEqualTo(S3StoreSettings.DEFAULT_OPERATION_TIMEOUT);
    assertThat(s.maxConnections()).isEqualTo(S3StoreSettings.DEFAULT_MAX_CONNECTIONS);
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.connectionAcquisitionTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(
            S3StoreSettings.builder()
                .bucket("b")
                .connectTimeout(Duration.ofMillis(250))
                .build()
                .connectionAcquisitionTimeout())
        .isEqualTo(Duration.ofMillis(1250));
  }

  @Test
  void invalidValuesAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> S3StoreSettings.builder().build()).hasMessageContaining("bucket");
    assertThatThrownBy(() -> S3StoreSettings.builder().bucket("").build())
        .hasMessageContaining("bucket");
    assertThatThrownBy(() -> S3StoreSettings.builder().bucket("a b").build())
        .hasMessageContaining("bucket");
    assertThatThrownBy(() -> S3StoreSettings.builder().prefix("a/../b"))
        .hasMessageContaining("prefix");
    assertThatThrownBy(() -> S3StoreSettings.builder().endpoint(URI.create("ftp://x")))
        .hasMessageContaining("endpoint");
    assertThatThrownBy(() -> S3StoreSettings.builder().endpoint(URI.create("localhost:9000")))
        .hasMessageContaining("endpoint");
    assertThatThrownBy(() -> S3StoreSettings.builder().region(" ")).hasMessageContaining("region");
    assertThatThrownBy(() -> S3StoreSettings.builder().operationTimeout(Duration.ZERO))
        .hasMessageContaining("operationTimeout");
    assertThatThrownBy(() -> S3StoreSettings.builder().maxConnections(0))
        .hasMessageContaining("maxConnections");
    assertThatThrownBy(() -> S3StoreSettings.builder().connectTimeout(Duration.ofNanos(10)))
        .hasMessageContaining("connectTimeout");
  }

  @Test
  void credentialsComeInPairs() {
    assertThatThrownBy(() -> S3StoreSettings.builder().credentials("id", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("together");
    assertThatThrownBy(() -> S3StoreSettings.builder().credentials(null, "secret"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> S3StoreSettings.builder().credentials("id", ""))
        .isInstanceOf(IllegalArgumentException.class);
    S3StoreSettings s = S3StoreSettings.builder().bucket("b").credentials("id", "s3cr3t").build();
    assertThat(s.accessKeyId()).hasValue("id");
    assertThat(s.secretAccessKey()).hasValue("s3cr3t");
  }

  @Test
  void toStringNeverShowsTheSecret() {
    S3StoreSettings s =
        S3StoreSettings.builder()
            .bucket("b")
            .prefix("p")
            .endpoint(URI.create("http://127.0.0.1:9000"))
            .region("eu-west-1")
            .credentials("AKIDEXAMPLE", "wJalrXUtnFEMI-very-secret")
            .build();
    assertThat(s.toString())
        .contains("s3://b/p", "AKIDEXAMPLE", "eu-west-1", "http://127.0.0.1:9000")
        .doesNotContain("wJalrXUtnFEMI-very-secret");
  }

  @Test
  void theHttpClientIsNettyByDefaultCrtWhenChosenAndNothingElse() {
    assertThat(S3StoreSettings.builder().bucket("b").build().httpClient()).isEqualTo("netty");
    S3StoreSettings crt = S3StoreSettings.builder().bucket("b").httpClient("CRT").build();
    assertThat(crt.httpClient()).isEqualTo("crt");
    assertThat(crt.toString()).contains("httpClient=crt");
    assertThatThrownBy(() -> S3StoreSettings.builder().httpClient("apache5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("httpClient");
  }
}
