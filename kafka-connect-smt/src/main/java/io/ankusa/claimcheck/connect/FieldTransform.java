package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.PluginLifecycle;
import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.Secrets;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * What {@link CheckIn} and {@link Redeem} share: the field they work on (the key or the value), its
 * converter, and their lifecycle (core's {@link PluginLifecycle}: configure opens the claim check,
 * close releases it and closes the converter); not thread-safe (a worker gives each task its own
 * instance).
 */
abstract class FieldTransform<R extends ConnectRecord<R>> implements Transformation<R> {

  /** What a configured transform works with; immutable. */
  record Configured(
      ClaimCheck claimCheck, Converter converter, int threshold, long deadlineNanos) {}

  private final Ticker ticker;
  private final boolean isKey;
  private final PluginLifecycle<Configured> lifecycle;

  FieldTransform(Ticker ticker, boolean isKey) {
    this.ticker = ticker;
    this.isKey = isKey;
    this.lifecycle = new PluginLifecycle<>(getClass().getName(), TransformConfig.CONVERTER);
  }

  /**
   * Validates {@code props} (a {@link ConfigException} names a bad key), configures the converter
   * for the field and opens the claim check; configured again, it releases the earlier ones.
   */
  @Override
  public void configure(Map<String, ?> props) {
    TransformConfig.refuseUnknownKeys(props);
    ClaimCheckConfig config = new ClaimCheckConfig(props);
    Converter converter = converter(props);
    lifecycle.open(
        config,
        props,
        ticker,
        converter,
        cc ->
            new Configured(
                cc,
                converter,
                config.getInt(ClaimCheckConfig.THRESHOLD_BYTES),
                config.readDeadline().toNanos()));
  }

  private Converter converter(Map<String, ?> props) {
    Class<?> type = TransformConfig.converterClass(props);
    try {
      Converter converter = (Converter) Utils.newInstance(type);
      converter.configure(TransformConfig.converterSettings(props), isKey);
      return converter;
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
  }

  /** The configured state; throws {@link IllegalStateException} before configure, after close. */
  final Configured configured() {
    return lifecycle.get();
  }

  final Ticker ticker() {
    return ticker;
  }

  final boolean isKey() {
    return isKey;
  }

  final String fieldName() {
    return isKey ? "key" : "value";
  }

  /** The field's marker header name. */
  final String marker() {
    return RefFields.marker(isKey);
  }

  final Schema fieldSchema(R record) {
    return isKey ? record.keySchema() : record.valueSchema();
  }

  final Object field(R record) {
    return isKey ? record.key() : record.value();
  }

  /**
   * {@code record} with the field replaced by {@code value} of {@code schema}, and {@code headers}.
   */
  final R withField(R record, Schema schema, Object value, Headers headers) {
    return isKey
        ? RecordFields.withKey(record, schema, value, headers)
        : RecordFields.withValue(record, schema, value, headers);
  }

  /** The {@link DataException} saying the converter {@code c} failed on {@code record}'s field. */
  final DataException converterFailed(Converter c, R record, DataException e) {
    return new DataException(
        TransformConfig.CONVERTER
            + " "
            + c.getClass().getName()
            + " cannot convert the "
            + fieldName()
            + " of "
            + Failures.describe(record)
            + ": "
            + e.getMessage(),
        e);
  }

  @Override
  public ConfigDef config() {
    return TransformConfig.CONFIG_DEF;
  }

  @Override
  public String version() {
    return Version.get();
  }

  /** Closes the converter and releases the claim check; idempotent. */
  @Override
  public void close() {
    lifecycle.close();
  }
}
