package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The S3 store's settings, as configured library-wide and per store, are what it is built with. */
class S3StoreProviderTest {

  @Test
  void libraryWideValuesAndPerStoreOverridesReachTheStoreSettings() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "s3://claims/team-a, s3://backup");
    m.put("claimcheck.s3.endpoint", "http://127.0.0.1:9000");
    m.put("claimcheck.s3.access.key.id", "AK");
    m.put("claimcheck.s3.secret.access.key", "very-secret");
    m.put("claimcheck.store.1.s3.endpoint", "https://10.0.0.9:9000");
    m.put("claimcheck.store.1.s3.secret.access.key", "other-secret");
    m.put("claimcheck.store.1.s3.access.key.id", "AK2");
    m.put("claimcheck.store.1.op.deadline.ms", "2500");
    m.put("claimcheck.store.1.s3.connect.timeout.ms", "750");
    m.put("claimcheck.store.1.s3.max.connections", "16");
    m.put("claimcheck.store.1.s3.path.style.access", "true");
    m.put("claimcheck.store.1.s3.region", "eu-west-1");
    m.put("claimcheck.store.1.s3.multipart.part.bytes", String.valueOf(6 << 20));
    m.put("claimcheck.store.1.s3.multipart.threshold.bytes", String.valueOf(12 << 20));
    List<StoreSpec> s = new ClaimCheckConfig(m).stores();

    S3Settings a = S3Settings.from(s.get(0).uri(), s.get(0).settings());
    assertThat(a.bucket()).isEqualTo("claims");
    assertThat(a.prefix()).isEqualTo("team-a/");
    assertThat(a.endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(a.region()).contains("us-east-1");
    assertThat(a.pathStyleAccess()).isFalse();
    assertThat(a.accessKeyId()).contains("AK");
    assertThat(a.secretAccessKey()).contains("very-secret");
    assertThat(a.operationTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(a.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(a.maxConnections()).isEqualTo(128);
    assertThat(a.multipartThreshold()).isEqualTo(16 << 20);
    assertThat(a.partSize()).isEqualTo(8 << 20);

    S3Settings b = S3Settings.from(s.get(1).uri(), s.get(1).settings());
    assertThat(b.bucket()).isEqualTo("backup");
    assertThat(b.prefix()).isEmpty();
    assertThat(b.endpoint()).contains(URI.create("https://10.0.0.9:9000"));
    assertThat(b.region()).contains("eu-west-1");
    assertThat(b.pathStyleAccess()).isTrue();
    assertThat(b.accessKeyId()).contains("AK2");
    assertThat(b.secretAccessKey()).contains("other-secret");
    assertThat(b.operationTimeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(b.connectTimeout()).isEqualTo(Duration.ofMillis(750));
    assertThat(b.maxConnections()).isEqualTo(16);
    assertThat(b.multipartThreshold()).isEqualTo(12 << 20);
    assertThat(b.partSize()).isEqualTo(6 << 20);
    assertThat(b.toString()).doesNotContain("other-secret");
  }

  @Test
  void anEmptyEndpointRegionOrCredentialMeansTheAwsDefaults() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "s3://claims");
    m.put("claimcheck.s3.endpoint", "");
    m.put("claimcheck.s3.region", " ");
    m.put("claimcheck.s3.access.key.id", "");
    m.put("claimcheck.s3.secret.access.key", "");
    StoreSpec spec = new ClaimCheckConfig(m).stores().get(0);
    S3Settings s = S3Settings.from(spec.uri(), spec.settings());
    assertThat(s.endpoint()).isEmpty();
    assertThat(s.region()).isEmpty();
    assertThat(s.accessKeyId()).isEmpty();
  }
}
