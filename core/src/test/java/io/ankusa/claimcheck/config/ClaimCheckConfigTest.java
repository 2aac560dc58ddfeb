package io.ankusa.claimcheck.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.internal.placement.Placement;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClaimCheckConfigTest {

  private static Map<String, Object> base() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "s3://claims/team-a, s3://backup, file:///var/claims, memory:t");
    m.put("claimcheck.s3.endpoint", "http://127.0.0.1:9000");
    m.put("claimcheck.s3.access.key.id", "AK");
    m.put("claimcheck.s3.secret.access.key", "very-secret");
    m.put("bootstrap.servers", "ignored:9092");
    return m;
  }

  @Test
  void packKeysAreTheConfiguredLayoutsKeyThenTheOthers() {
    Map<String, Object> m = base();
    assertThat(new ClaimCheckConfig(m).packKeys("acme", 0xab12L << 48))
        .containsExactly("acme/ab12000000000000", "acme/ab/ab12000000000000");
    m.put("claimcheck.key.layout", "SHARDED");
    assertThat(new ClaimCheckConfig(m).packKeys("acme", 0xab12L << 48))
        .containsExactly("acme/ab/ab12000000000000", "acme/ab12000000000000");
  }

  @Test
  void resolvesStoresWithDefaultsAndPerStoreOverrides() {
    Map<String, Object> m = base();
    m.put("claimcheck.store.1.s3.endpoint", "http://10.0.0.9:9000");
    m.put("claimcheck.store.1.s3.secret.access.key", "other-secret");
    m.put("claimcheck.store.1.s3.access.key.id", "AK2");
    m.put("claimcheck.store.1.op.deadline.ms", "2500");
    m.put("claimcheck.store.1.s3.connect.timeout.ms", "750");
    m.put("claimcheck.store.1.s3.max.connections", "16");
    m.put("claimcheck.store.1.s3.multipart.part.bytes", String.valueOf(6 << 20));
    m.put("claimcheck.store.1.s3.multipart.threshold.bytes", String.valueOf(12 << 20));
    m.put("claimcheck.placement", "HASH");
    m.put("claimcheck.key.layout", "sharded");
    ClaimCheckConfig c = new ClaimCheckConfig(m);

    assertThat(Placement.parse(c.getString(ClaimCheckConfig.PLACEMENT))).isEqualTo(Placement.HASH);
    assertThat(KeyLayout.parse(c.getString(ClaimCheckConfig.KEY_LAYOUT)))
        .isEqualTo(KeyLayout.SHARDED);
    List<StoreSpec> s = c.stores();
    assertThat(s).hasSize(4);
    StoreSpec a = s.get(0);
    assertThat(a.uri()).isEqualTo(URI.create("s3://claims/team-a"));
    assertThat(a.scheme()).isEqualTo("s3");
    assertThat(a.settings().getString("s3.endpoint")).isEqualTo("http://127.0.0.1:9000");
    assertThat(a.opDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(a.settings().getPassword("s3.secret.access.key").value()).isEqualTo("very-secret");
    assertThat(a.settings().getLong("s3.connect.timeout.ms")).isEqualTo(2_000L);
    assertThat(a.settings().getInt("s3.max.connections")).isEqualTo(128);
    assertThat(a.settings().getInt("s3.multipart.threshold.bytes")).isEqualTo(16 << 20);
    assertThat(a.settings().getInt("s3.multipart.part.bytes")).isEqualTo(8 << 20);
    assertThat(a.settings().keyOf("s3.endpoint")).isEqualTo("claimcheck.s3.endpoint");
    StoreSpec b = s.get(1);
    assertThat(b.uri()).isEqualTo(URI.create("s3://backup"));
    assertThat(b.settings().getString("s3.endpoint")).isEqualTo("http://10.0.0.9:9000");
    assertThat(b.settings().getPassword("s3.access.key.id").value()).isEqualTo("AK2");
    assertThat(b.settings().getPassword("s3.secret.access.key").value()).isEqualTo("other-secret");
    assertThat(b.opDeadline()).isEqualTo(Duration.ofMillis(2500));
    assertThat(b.settings().getLong("s3.connect.timeout.ms")).isEqualTo(750L);
    assertThat(b.settings().getInt("s3.max.connections")).isEqualTo(16);
    assertThat(b.settings().getInt("s3.multipart.threshold.bytes")).isEqualTo(12 << 20);
    assertThat(b.settings().getInt("s3.multipart.part.bytes")).isEqualTo(6 << 20);
    assertThat(b.settings().keyOf("s3.endpoint")).isEqualTo("claimcheck.store.1.s3.endpoint");
    assertThat(s.get(2).uri()).isEqualTo(URI.create("file:///var/claims"));
    assertThat(s.get(2).scheme()).isEqualTo("file");
    assertThat(s.get(3).uri()).isEqualTo(URI.create("memory:t"));
    assertThat(s.get(3).scheme()).isEqualTo("memory");
    // What the stores are built from (bucket, prefix, root) is asserted in S3StoreProviderTest
    // and FileStoreProviderTest.
  }

  @Test
  void secretsNeverAppearInToString() {
    ClaimCheckConfig c = new ClaimCheckConfig(base());
    assertThat(c.stores().toString()).doesNotContain("very-secret");
    assertThat(c.toString()).doesNotContain("very-secret");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "claimcheck.stores|ftp://x",
        "claimcheck.stores|s3://A_BAD_BUCKET",
        "claimcheck.stores|s3://bucket/../escape",
        "claimcheck.stores|memory:has space",
        "claimcheck.tenant|Upper",
        "claimcheck.tenant|a/b",
        "claimcheck.tenant|..",
        "claimcheck.tenant|-lead",
        "claimcheck.tenant|this-tenant-name-is-far-too-long-to-be-a-tenant",
        "claimcheck.placement|random",
        "claimcheck.key.layout|deep",
        "claimcheck.store.op.deadline.ms|0",
        "claimcheck.store.cooldown.ms|-1",
        "claimcheck.read.max.inflight|0",
        "claimcheck.read.queue.max|-5",
        "claimcheck.threshold.bytes|zero",
        "claimcheck.poll.budget.ratio|1.5",
        "claimcheck.compression.type|brotli",
        "claimcheck.cache.max.bytes|-1",
        "claimcheck.store.4.s3.endpoint|http://x:1",
        "claimcheck.store.0.s3.colour|blue",
        "claimcheck.store.0.op.deadline.ms|soon",
        "claimcheck.store.0.s3.path.style.access|yes",
        "claimcheck.store.0.s3.endpoint|not a url",
        "claimcheck.s3.endpoint|ftp://h",
        "claimcheck.store.1.s3.endpoint|ftp://h",
        "claimcheck.s3.endpoint|http:///no-host",
        "claimcheck.store.0.file.permissions|rw-r-----",
        "claimcheck.store.2.s3.region|eu-west-1",
        "claimcheck.store.0.s3.max.connections|10001",
        "claimcheck.store.0.s3.path.style.access|2",
        "claimcheck.s3.connect.timeout.ms|0",
        "claimcheck.s3.connect.timeout.ms|60001",
        "claimcheck.s3.max.connections|0",
        "claimcheck.store.0.s3.connect.timeout.ms|soon",
        "claimcheck.store.0.s3.connect.timeout.ms|60001",
        "claimcheck.store.1.s3.max.connections|-3",
        "claimcheck.s3.multipart.part.bytes|1048576",
        "claimcheck.s3.multipart.threshold.bytes|5242880",
        "claimcheck.s3.multipart.threshold.bytes|8388608",
        "claimcheck.store.0.s3.multipart.part.bytes|1048576",
        "claimcheck.store.0.s3.multipart.threshold.bytes|8388608",
        "claimcheck.store.0.s3.multipart.threshold.bytes|big",
        "claimcheck.read.max.bytes|0",
        "claimcheck.read.max.bytes|2147483640",
        "claimcheck.read.max.bytes|lots",
        "claimcheck.write.max.bytes|0",
        "claimcheck.write.max.bytes|-1",
        "claimcheck.write.max.bytes|2147483647",
      })
  void badValueThrowsConfigExceptionNamingTheKey(String key, String value) {
    Map<String, Object> m = base();
    m.put(key, value);
    assertThatThrownBy(() -> new ClaimCheckConfig(m))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void byteLimitsDefaultTo256MibAndAcceptTheLargestArray() {
    ClaimCheckConfig c = new ClaimCheckConfig(base());
    assertThat(c.readMaxBytes()).isEqualTo(256 << 20);
    assertThat(c.writeMaxBytes()).isEqualTo(256 << 20);
    Map<String, Object> m = base();
    m.put(ClaimCheckConfig.READ_MAX_BYTES, String.valueOf(Integer.MAX_VALUE - 8));
    m.put(ClaimCheckConfig.WRITE_MAX_BYTES, 1);
    ClaimCheckConfig edges = new ClaimCheckConfig(m);
    assertThat(edges.readMaxBytes()).isEqualTo(Integer.MAX_VALUE - 8);
    assertThat(edges.writeMaxBytes()).isEqualTo(1);
  }

  @Test
  void missingStoresIsNamed() {
    assertThatThrownBy(() -> new ClaimCheckConfig(Map.of("claimcheck.tenant", "acme")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.stores");
  }

  @Test
  void theMultipartRuleNamesTheThresholdKeyItsValueCameFrom() {
    Map<String, Object> m = base();
    m.put("claimcheck.store.1.s3.multipart.part.bytes", String.valueOf(16 << 20));
    assertThatThrownBy(() -> new ClaimCheckConfig(m))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.s3.multipart.threshold.bytes")
        .hasMessageContaining("claimcheck.store.1.s3.multipart.part.bytes");
  }

  @Test
  void aRefusedEndpointIsNotShown() {
    Map<String, Object> m = base();
    m.put("claimcheck.store.1.s3.endpoint", "ftp://files.example:21");
    assertThatThrownBy(() -> new ClaimCheckConfig(m))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.1.s3.endpoint")
        .hasMessageContaining("http")
        .hasMessageNotContaining("files.example");
  }

  @Test
  void accessKeyWithoutSecretIsRefused() {
    Map<String, Object> m = base();
    m.remove("claimcheck.s3.secret.access.key");
    assertThatThrownBy(() -> new ClaimCheckConfig(m))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.s3.access.key.id");
  }

  @Test
  void equalConfigsResolveToEqualSpecs() {
    assertThat(new ClaimCheckConfig(base()).stores())
        .isEqualTo(new ClaimCheckConfig(base()).stores());
  }

  @Test
  void theKeyPolicyTellsLibraryPerStoreSurfaceAndUnknownKeysApart() {
    assertThat(ClaimCheckConfig.isCoreKey("claimcheck.tenant")).isTrue();
    assertThat(ClaimCheckConfig.isCoreKey("claimcheck.meter.registry")).isTrue();
    assertThat(ClaimCheckConfig.isCoreKey("claimcheck.store.3.s3.region")).isTrue();
    assertThat(ClaimCheckConfig.isCoreKey("claimcheck.store.x.s3.region")).isFalse();
    for (String surface :
        List.of(
            "claimcheck.value.serde",
            "claimcheck.key.serde",
            "claimcheck.streams.final.failure",
            "claimcheck.write.max.inflight",
            "claimcheck.converter",
            "claimcheck.converter.schemas.enable")) {
      assertThat(ClaimCheckConfig.isSurfaceKey(surface)).as(surface).isTrue();
      assertThat(ClaimCheckConfig.isCoreKey(surface)).as(surface).isFalse();
      assertThat(ClaimCheckConfig.isKnownKey(surface)).as(surface).isTrue();
    }
    for (String unknown :
        List.of("claimcheck.value.serdes", "claimcheck.converter.", "claimcheck.converterr.x")) {
      assertThat(ClaimCheckConfig.isKnownKey(unknown)).as(unknown).isFalse();
    }
    assertThat(ClaimCheckConfig.isClaimCheckKey("bootstrap.servers")).isFalse();
    // A surface accepts the core keys, the keys outside claimcheck., and only its own surface keys.
    var serde = ClaimCheckConfig.keysReadBy("claimcheck.value.serde"::equals);
    assertThat(serde.test("claimcheck.value.serde")).isTrue();
    assertThat(serde.test("claimcheck.store.0.op.deadline.ms")).isTrue();
    assertThat(serde.test("bootstrap.servers")).isTrue();
    assertThat(serde.test("claimcheck.converter")).isFalse();
    // ... and cannot accept a claimcheck. key the library does not know.
    assertThat(ClaimCheckConfig.keysReadBy(k -> true).test("claimcheck.nope")).isFalse();
  }

  @Test
  void aSurfaceKeyIsAcceptedByCoreAndAnUnknownOneRefusedNamingIt() {
    Map<String, Object> m = base();
    m.put("claimcheck.value.serde", "org.apache.kafka.common.serialization.Serdes$StringSerde");
    m.put("claimcheck.converter.schemas.enable", "false");
    assertThat(new ClaimCheckConfig(m).stores()).hasSize(4);
    m.put("claimcheck.value.serdes", "s3cr3t-value");
    assertThatThrownBy(() -> new ClaimCheckConfig(m))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.value.serdes")
        .hasMessageNotContaining("s3cr3t-value");
  }
}
