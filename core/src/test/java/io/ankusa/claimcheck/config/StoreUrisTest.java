package io.ankusa.claimcheck.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** What a message shows of a refused store URI: enough to fix a typo, never a credential. */
class StoreUrisTest {

  @Test
  void aURIWhoseEveryPartIsAHostOrAPathIsShown() {
    assertThat(StoreUris.shown(URI.create("s3://bucket-a/p/q"))).isEqualTo("s3://bucket-a/p/q");
    assertThat(StoreUris.shown(URI.create("s3://host:9000/p"))).isEqualTo("s3://host:9000/p");
    assertThat(StoreUris.shown(URI.create("file:///var/claims"))).isEqualTo("file:///var/claims");
    assertThat(StoreUris.shown(URI.create("memory:name"))).isEqualTo("memory:name");
  }

  @Test
  void aURIWhereAnIdAndSecretCouldHideShowsOnlyItsScheme() {
    assertThat(StoreUris.shown(URI.create("s3:ID:SECRET"))).isEqualTo("s3:[hidden]");
    assertThat(StoreUris.shown(URI.create("s3:/ID:SECRET"))).isEqualTo("s3:[hidden]");
    assertThat(StoreUris.shown(URI.create("s3:///ID:SECRET/p"))).isEqualTo("s3:[hidden]");
    assertThat(StoreUris.shown(URI.create("s3://b/p?k=SECRET"))).isEqualTo("s3:[hidden]");
    assertThat(StoreUris.shown(URI.create("/ID:SECRET"))).isEqualTo("[hidden]");
  }

  @Test
  void aRefusedStoreStillNamesItsKeyAndAHarmlessURI() {
    assertThatThrownBy(() -> new ClaimCheckConfig(Map.of("claimcheck.stores", "s3://Bad_Bucket/p")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.stores")
        .hasMessageContaining("s3://Bad_Bucket/p");
    assertThatThrownBy(() -> new ClaimCheckConfig(Map.of("claimcheck.stores", "s3:ID:SECRET@b")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.stores")
        .hasMessageContaining("'@'")
        .hasMessageNotContaining("SECRET");
  }
}
