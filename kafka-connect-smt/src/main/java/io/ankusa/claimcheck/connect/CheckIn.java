package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.time.Ticker;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * Source-side transform: converts the record's key ({@link Key}) or value ({@link Value}) to bytes
 * with the configured converter and, at or above {@code claimcheck.threshold.bytes} (or, whatever
 * their size, when they start with the ref magic, so no inline field looks like a ref), checks them
 * in and puts the ref in their place; not thread-safe (a worker gives each task its own instance).
 *
 * <p>The stored bytes and the ref are exactly what {@code ClaimCheckSerializer} produces for the
 * same bytes, so {@code ClaimCheckDeserializer} redeems what this transform checked in.
 */
public abstract class CheckIn<R extends ConnectRecord<R>> extends FieldTransform<R>
    implements Transformation<R> {

  /** What this transform does, as Connect shows it (the plugin's overview). */
  public static final String OVERVIEW_DOC =
      "Checks large keys or values in to S3-compatible claim stores and replaces them with a small"
          + " claim-check ref (marked with the header "
          + RefFields.VALUE_MARKER
          + " or "
          + RefFields.KEY_MARKER
          + "). Use <code>"
          + "io.ankusa.claimcheck.connect.CheckIn$Key</code> for the record key or <code>"
          + "io.ankusa.claimcheck.connect.CheckIn$Value</code> for the record value. The field is"
          + " first converted to bytes with claimcheck.converter (the format consumers read, e.g."
          + " JsonConverter with claimcheck.converter.schemas.enable=false); at or above"
          + " claimcheck.threshold.bytes those bytes are checked in and the field becomes the ref,"
          + " below it the field becomes the converted bytes. Either way the field is BYTES: set"
          + " the worker's or connector's key.converter/value.converter for that field to"
          + " org.apache.kafka.connect.converters.ByteArrayConverter. Null fields (tombstones)"
          + " pass through. A key's ref is derived from its content, so one key always yields one"
          + " ref. A check-in that fails because no store answered throws a RetriableException;"
          + " with errors.tolerance=all, set errors.retry.timeout=-1 unless such records may be"
          + " dropped after the retry timeout.";

  /** Every key this transform reads: the {@code claimcheck.*} keys and the converter's. */
  public static final ConfigDef CONFIG_DEF = TransformConfig.CONFIG_DEF;

  CheckIn(Ticker ticker, boolean isKey) {
    super(ticker, isKey);
  }

  @Override
  public R apply(R record) {
    Configured c = configured();
    Headers headers = record.headers().duplicate();
    headers.remove(marker());
    Object field = field(record);
    if (field == null) {
      return withField(record, Schema.OPTIONAL_BYTES_SCHEMA, null, headers);
    }
    byte[] bytes;
    try {
      bytes = c.converter().fromConnectData(record.topic(), fieldSchema(record), field);
    } catch (DataException e) {
      throw converterFailed(c.converter(), record, e);
    }
    if (bytes == null) {
      return withField(record, Schema.OPTIONAL_BYTES_SCHEMA, null, headers);
    }
    if (!FieldClaims.checksIn(bytes, c.threshold())) {
      return withField(record, Schema.BYTES_SCHEMA, bytes, headers); // a ref-like one is claimed
    }
    ClaimRef ref =
        FieldClaims.checkIn(
            c.claimCheck(), isKey(), bytes, () -> Failures.where(record, fieldName()));
    headers.addString(marker(), RefFields.markerValue(ref.version()));
    return withField(record, Schema.BYTES_SCHEMA, RefCodec.encode(ref), headers);
  }

  /**
   * Checks large record keys in, under content-derived pack ids: one key always yields one ref, so
   * partitioning and compaction keep working. (The serializer's {@code claimcheck.keys.enabled} is
   * not consulted: choosing this transform is the opt-in.)
   */
  public static class Key<R extends ConnectRecord<R>> extends CheckIn<R> {

    /** The transform of the record key, as a worker instantiates it by class name. */
    public Key() {
      this(Ticker.system());
    }

    Key(Ticker ticker) {
      super(ticker, true);
    }
  }

  /** Checks large record values in. */
  public static class Value<R extends ConnectRecord<R>> extends CheckIn<R> {

    /** The transform of the record value, as a worker instantiates it by class name. */
    public Value() {
      this(Ticker.system());
    }

    Value(Ticker ticker) {
      super(ticker, false);
    }
  }
}
