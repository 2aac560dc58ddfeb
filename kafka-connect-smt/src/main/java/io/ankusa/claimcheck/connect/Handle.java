package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.Secrets;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.storage.Converter;

/**
 * What a configured transform holds: its claim check handle and its converter; thread-safe, and
 * closed at most once.
 */
final class Handle implements AutoCloseable {

  private final ClaimCheck claimCheck;
  private final Converter converter;
  private final int threshold;
  private final AtomicBoolean closed = new AtomicBoolean();

  private Handle(ClaimCheck claimCheck, Converter converter, int threshold) {
    this.claimCheck = claimCheck;
    this.converter = converter;
    this.threshold = threshold;
  }

  /**
   * Validates {@code props} (a {@link ConfigException} names a bad key), configures the converter
   * for keys ({@code isKey}) or values, and opens the claim check on {@code ticker}.
   */
  static Handle open(Map<String, ?> props, boolean isKey, Ticker ticker) {
    TransformConfig.refuseUnknownKeys(props);
    ClaimCheckConfig config = new ClaimCheckConfig(props);
    Class<?> type = TransformConfig.converterClass(props);
    Converter converter;
    try {
      converter = (Converter) Utils.newInstance(type);
      converter.configure(TransformConfig.converterSettings(props), isKey);
    } catch (RuntimeException e) {
      // The converter's message may quote its settings: secret-named ones are scrubbed out, and
      // the cause is not kept.
      throw new ConfigException(
          TransformConfig.CONVERTER,
          type.getName(),
          "cannot be set up with its settings under "
              + TransformConfig.CONVERTER_PREFIX
              + ": "
              + Secrets.scrub(e.getMessage(), props, TransformConfig::isTransformKey));
    }
    try {
      ClaimCheck cc = ClaimCheck.open(config, props.get(ClaimCheck.METER_REGISTRY), ticker);
      return new Handle(cc, converter, config.getInt(ClaimCheckConfig.THRESHOLD_BYTES));
    } catch (RuntimeException e) {
      Utils.closeQuietly(converter, "claimcheck.converter");
      throw e;
    }
  }

  ClaimCheck claimCheck() {
    return claimCheck;
  }

  Converter converter() {
    return converter;
  }

  int threshold() {
    return threshold;
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Closes the converter and releases the claim check; idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      Utils.closeQuietly(converter, "claimcheck.converter");
      claimCheck.close();
    }
  }
}
