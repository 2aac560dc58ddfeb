package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
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
public abstract class CheckIn<R extends ConnectRecord<R>> implements Transformation<R> {

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

  private final Ticker ticker;
  private Handle handle;

  CheckIn(Ticker ticker) {
    this.ticker = ticker;
  }

  @Override
  public void configure(Map<String, ?> props) {
    Handle opened = Handle.open(props, isKey(), ticker);
    Handle previous = handle;
    handle = opened;
    if (previous != null) {
      previous.close();
    }
  }

  @Override
  public R apply(R record) {
    Handle h = handle();
    Headers headers = record.headers().duplicate();
    headers.remove(RefFields.marker(isKey()));
    Object field = operatingValue(record);
    if (field == null) {
      return newRecord(record, Schema.OPTIONAL_BYTES_SCHEMA, null, headers);
    }
    byte[] bytes;
    try {
      bytes = h.converter().fromConnectData(record.topic(), operatingSchema(record), field);
    } catch (DataException e) {
      throw new DataException(
          TransformConfig.CONVERTER
              + " "
              + h.converter().getClass().getName()
              + " cannot convert the "
              + fieldName()
              + " of "
              + Failures.describe(record)
              + ": "
              + e.getMessage(),
          e);
    }
    if (bytes == null) {
      return newRecord(record, Schema.OPTIONAL_BYTES_SCHEMA, null, headers);
    }
    if (bytes.length < h.threshold() && !RefFields.startsWithMagic(bytes)) {
      return newRecord(record, Schema.BYTES_SCHEMA, bytes, headers); // a ref-like one is claimed
    }
    ClaimRef ref;
    try {
      ref = isKey() ? h.claimCheck().checkInKey(bytes) : h.claimCheck().checkIn(bytes);
    } catch (ClaimCheckFailure f) {
      throw Failures.toConnect(f, record, fieldName());
    }
    headers.addString(RefFields.marker(isKey()), String.valueOf(ref.version()));
    return newRecord(record, Schema.BYTES_SCHEMA, RefCodec.encode(ref), headers);
  }

  private Handle handle() {
    Handle h = handle;
    if (h == null) {
      throw new IllegalStateException(getClass().getName() + " is not configured");
    }
    if (h.isClosed()) {
      throw new IllegalStateException(getClass().getName() + " is closed");
    }
    return h;
  }

  @Override
  public ConfigDef config() {
    return CONFIG_DEF;
  }

  @Override
  public String version() {
    return Version.get();
  }

  /** Closes the converter and releases the claim check; idempotent. */
  @Override
  public void close() {
    Handle h = handle;
    if (h != null) {
      h.close();
    }
  }

  abstract boolean isKey();

  private String fieldName() {
    return isKey() ? "key" : "value";
  }

  protected abstract Schema operatingSchema(R record);

  protected abstract Object operatingValue(R record);

  protected abstract R newRecord(R record, Schema schema, Object value, Headers headers);

  /**
   * Checks large record keys in, under content-derived pack ids: one key always yields one ref, so
   * partitioning and compaction keep working. (The serializer's {@code claimcheck.keys.enabled} is
   * not consulted: choosing this transform is the opt-in.)
   */
  public static class Key<R extends ConnectRecord<R>> extends CheckIn<R> {

    public Key() {
      this(Ticker.system());
    }

    Key(Ticker ticker) {
      super(ticker);
    }

    @Override
    boolean isKey() {
      return true;
    }

    @Override
    protected Schema operatingSchema(R record) {
      return record.keySchema();
    }

    @Override
    protected Object operatingValue(R record) {
      return record.key();
    }

    @Override
    protected R newRecord(R record, Schema schema, Object value, Headers headers) {
      return RecordFields.withKey(record, schema, value, headers);
    }
  }

  /** Checks large record values in. */
  public static class Value<R extends ConnectRecord<R>> extends CheckIn<R> {

    public Value() {
      this(Ticker.system());
    }

    Value(Ticker ticker) {
      super(ticker);
    }

    @Override
    boolean isKey() {
      return false;
    }

    @Override
    protected Schema operatingSchema(R record) {
      return record.valueSchema();
    }

    @Override
    protected Object operatingValue(R record) {
      return record.value();
    }

    @Override
    protected R newRecord(R record, Schema schema, Object value, Headers headers) {
      return RecordFields.withValue(record, schema, value, headers);
    }
  }
}
