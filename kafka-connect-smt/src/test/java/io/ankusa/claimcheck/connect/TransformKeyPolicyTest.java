package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import org.junit.jupiter.api.Test;

/**
 * Every key the transforms define is one core's key policy knows, and a transform takes only its
 * own surface keys (the converter's), not the serde's.
 */
class TransformKeyPolicyTest {

  @Test
  void everyTransformKeyIsACoreOrASurfaceKey() {
    for (String key : TransformConfig.CONFIG_DEF.names()) {
      assertThat(ClaimCheckConfig.isKnownKey(key)).as(key).isTrue();
      assertThat(TransformConfig.isTransformKey(key)).as(key).isTrue();
    }
    assertThat(TransformConfig.isTransformKey("claimcheck.converter.schemas.enable")).isTrue();
    assertThat(TransformConfig.isTransformKey("claimcheck.converter.")).isFalse();
    assertThat(TransformConfig.isTransformKey("claimcheck.converterr.x")).isFalse();
    assertThat(TransformConfig.isTransformKey("claimcheck.value.serde")).isFalse();
  }
}
