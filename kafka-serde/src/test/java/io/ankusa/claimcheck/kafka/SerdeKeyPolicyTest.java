package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import org.junit.jupiter.api.Test;

/**
 * Every key the serde defines is one core's key policy knows: a core key or a surface key, so a map
 * configuring the serde passes {@link ClaimCheckConfig} (and the CLI) unrefused.
 */
class SerdeKeyPolicyTest {

  @Test
  void everySerdeKeyIsACoreOrASurfaceKey() {
    for (String key : ClaimCheckSerdeConfig.CONFIG_DEF.names()) {
      assertThat(ClaimCheckConfig.isKnownKey(key)).as(key).isTrue();
      assertThat(ClaimCheckSerdeConfig.isSerdeKey(key)).as(key).isTrue();
      if (!ClaimCheckConfig.CONFIG_DEF.names().contains(key)) {
        assertThat(ClaimCheckConfig.isSurfaceKey(key)).as(key).isTrue();
      }
    }
    assertThat(ClaimCheckSerdeConfig.isSerdeKey("claimcheck.converter")).isFalse();
  }
}
