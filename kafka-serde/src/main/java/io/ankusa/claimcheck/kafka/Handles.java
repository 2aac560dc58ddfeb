package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Utils;

/**
 * Opens what a configured serializer or deserializer holds: the claim check and the inner serde;
 * stateless and thread-safe.
 */
final class Handles {

  private Handles() {}

  /** Instantiates and configures the configured inner serde for keys or values. */
  @SuppressWarnings("unchecked")
  static <T> Serde<T> innerSerde(
      ClaimCheckSerdeConfig config, Map<String, ?> configs, boolean isKey) {
    Serde<T> serde = (Serde<T>) Utils.newInstance(config.serdeClass(isKey));
    serde.configure(configs, isKey);
    return serde;
  }

  /**
   * Opens the claim check for {@code config} (the Micrometer registry, if any, from {@code
   * configs}); when that fails, closes {@code owned}, the inner half just configured, and rethrows.
   */
  static ClaimCheck openClaimCheck(
      ClaimCheckConfig config, Map<String, ?> configs, Ticker ticker, AutoCloseable owned) {
    try {
      return ClaimCheck.open(config, configs.get(ClaimCheck.METER_REGISTRY), ticker);
    } catch (RuntimeException e) {
      closeQuietly(owned, "inner serde");
      throw e;
    }
  }

  /** Closes {@code c} (null-safe), keeping the first failure. */
  static void closeQuietly(AutoCloseable c, String what) {
    Utils.closeQuietly(c, what);
  }
}
