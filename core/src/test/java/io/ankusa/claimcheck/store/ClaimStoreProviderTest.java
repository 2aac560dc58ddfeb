package io.ankusa.claimcheck.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * A store plugged in by URI scheme ({@link KvTestStoreProvider}, registered only in the test
 * resources) works through the public entry point, its settings are parsed per store, and the
 * scheme lookup refuses what it cannot resolve.
 */
class ClaimStoreProviderTest {

  private static Map<String, Object> config(String stores, String... kv) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, stores);
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void aPluggedInStoreChecksInAndRedeemsThroughClaimCheckOpen() {
    byte[] value = "a claim in a plugged-in store".repeat(100).getBytes(StandardCharsets.UTF_8);
    try (ClaimCheck cc =
        ClaimCheck.open(
            config("test-kv:round-trip", "claimcheck.store.0.test-kv.key.prefix", "pfx/"))) {
      ClaimRef ref = cc.checkIn(value);
      long deadline = cc.ticker().read() + 10_000_000_000L;
      assertThat(cc.redeemBlocking(ref, deadline)).isEqualTo(value);
    }
    // The object sits in the plugged-in store's space, under its configured prefix.
    assertThat(KvTestStoreProvider.SPACES.get("round-trip").keySet())
        .hasSize(1)
        .allMatch(k -> k.startsWith("pfx/"));
  }

  @Test
  void itsSettingsAreParsedPerStoreAndABadOneNamesItsKey() {
    ClaimCheckConfig c =
        new ClaimCheckConfig(
            config("test-kv:a,test-kv:b", "claimcheck.store.1.test-kv.max.object.bytes", "4096"));
    assertThat(c.stores().get(0).settings().getInt(KvTestStoreProvider.MAX_OBJECT_BYTES))
        .isEqualTo(1 << 20);
    assertThat(c.stores().get(1).settings().getInt(KvTestStoreProvider.MAX_OBJECT_BYTES))
        .isEqualTo(4096);
    assertThat(c.stores().get(1).settings().keyOf(KvTestStoreProvider.MAX_OBJECT_BYTES))
        .isEqualTo("claimcheck.store.1.test-kv.max.object.bytes");
    assertThatThrownBy(
            () ->
                new ClaimCheckConfig(
                    config("test-kv:a", "claimcheck.store.0.test-kv.max.object.bytes", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.test-kv.max.object.bytes");
    assertThatThrownBy(
            () ->
                new ClaimCheckConfig(
                    config("test-kv:a", "claimcheck.store.0.test-kv.key.prefix", "UPPER")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.test-kv.key.prefix");
    // Another scheme's setting is not one of this store's.
    assertThatThrownBy(
            () ->
                new ClaimCheckConfig(
                    config("test-kv:a", "claimcheck.store.0.s3.endpoint", "http://127.0.0.1:9000")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.s3.endpoint")
        .hasMessageContaining("test-kv.max.object.bytes");
    // A URI the provider refuses is reported under claimcheck.stores.
    assertThatThrownBy(() -> new ClaimCheckConfig(config("test-kv:Not_A_Space")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ClaimCheckConfig.STORES)
        .hasMessageContaining("test-kv:<space>");
  }

  @Test
  void anUnknownSchemeIsRefusedListingTheKnownOnes() {
    assertThatThrownBy(() -> ClaimCheck.open(config("ftp://host/claims")).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ClaimCheckConfig.STORES)
        .hasMessageContaining("'ftp'")
        .hasMessageContaining("file, ")
        .hasMessageContaining("memory")
        .hasMessageContaining("s3")
        .hasMessageContaining("test-kv");
  }

  @Test
  void aSchemeTwoProvidersClaimIsRefusedNamingBoth() {
    assertThatThrownBy(() -> ClaimCheck.open(config("memory:x,test-dup:x")).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ClaimCheckConfig.STORES)
        .hasMessageContaining(DuplicateSchemeProviders.First.class.getName())
        .hasMessageContaining(DuplicateSchemeProviders.Second.class.getName());
  }
}
