package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.ByteBuffer;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * Sink-side transform: redeems a claim-check ref in the record's key ({@link Key}) or value ({@link
 * Value}) and converts the bytes with the configured converter into a schema and value; not
 * thread-safe (a worker gives each task its own instance).
 *
 * <p>Reads what {@code ClaimCheckSerializer} and {@link CheckIn} write, and the bytes decide
 * ({@link RefFields}, the rule every surface shares): a field that does not start with the ref
 * magic is inline, marked or not; one that does carries a ref when the record has the marker header
 * or when its bytes are an intact ref frame (magic, length and CRC), with or without other headers.
 * Any other field is converted as it is. An {@link Error} met while redeeming is rethrown as
 * itself.
 */
public abstract class Redeem<R extends ConnectRecord<R>> extends FieldTransform<R>
    implements Transformation<R> {

  /** What this transform does, as Connect shows it (the plugin's overview). */
  public static final String OVERVIEW_DOC =
      "Redeems claim-check refs written by ClaimCheckSerializer or CheckIn: reads the claimed bytes"
          + " back from the claim stores (verified against the ref's length and checksum) and"
          + " converts them with claimcheck.converter into the field's schema and value; inline"
          + " fields are converted the same way, and the marker header is removed. Use <code>"
          + "io.ankusa.claimcheck.connect.Redeem$Key</code> for the record key or <code>"
          + "io.ankusa.claimcheck.connect.Redeem$Value</code> for the record value, and set the"
          + " connector's key.converter/value.converter for that field to"
          + " org.apache.kafka.connect.converters.ByteArrayConverter. A redeem waits at most"
          + " claimcheck.read.deadline.ms. A claim that no store could serve in time throws a"
          + " RetriableException: the worker retries it for errors.retry.timeout and never"
          + " treats it as bad data (with errors.tolerance=all, set errors.retry.timeout=-1, or"
          + " a long outage dead-letters the record). A claim that is gone, corrupt or refused"
          + " (tenant not in claimcheck.tenants.allowed, or a marked field that is not a ref)"
          + " throws a DataException naming the tenant and claim id: errors.tolerance and the"
          + " dead-letter queue decide. A ref written by a newer version of the library throws a"
          + " RetriableException (upgrade the reader), never a DataException.";

  /** Every key this transform reads: the {@code claimcheck.*} keys and the converter's. */
  public static final ConfigDef CONFIG_DEF = TransformConfig.CONFIG_DEF;

  Redeem(Ticker ticker, boolean isKey) {
    super(ticker, isKey);
  }

  @Override
  public R apply(R record) {
    Configured c = configured();
    byte[] bytes = bytes(field(record), record);
    Headers headers = record.headers().duplicate();
    boolean marked = headers.lastWithName(marker()) != null;
    headers.remove(marker()); // after a redeem the field is no longer a ref
    byte[] payload =
        FieldClaims.redeem(
            c.claimCheck(),
            isKey(),
            marked,
            bytes,
            ticker().read() + c.deadlineNanos(),
            () -> Failures.where(record, fieldName()));
    SchemaAndValue converted;
    try {
      converted = c.converter().toConnectData(record.topic(), payload);
    } catch (DataException e) {
      throw converterFailed(c.converter(), record, e);
    }
    return withField(record, converted.schema(), converted.value(), headers);
  }

  private byte[] bytes(Object field, R record) {
    if (field == null || field instanceof byte[]) {
      return (byte[]) field;
    }
    if (field instanceof ByteBuffer b) {
      byte[] copy = new byte[b.remaining()];
      b.duplicate().get(copy);
      return copy;
    }
    throw new DataException(
        getClass().getName()
            + " needs the "
            + fieldName()
            + " as bytes, but the "
            + fieldName()
            + " of "
            + Failures.describe(record)
            + " is a "
            + field.getClass().getName()
            + ": set the connector's "
            + fieldName()
            + ".converter to "
            + TransformConfig.DEFAULT_CONVERTER);
  }

  /** Redeems record keys. */
  public static class Key<R extends ConnectRecord<R>> extends Redeem<R> {

    /** The transform of the record key, as a worker instantiates it by class name. */
    public Key() {
      this(Ticker.system());
    }

    Key(Ticker ticker) {
      super(ticker, true);
    }
  }

  /** Redeems record values. */
  public static class Value<R extends ConnectRecord<R>> extends Redeem<R> {

    /** The transform of the record value, as a worker instantiates it by class name. */
    public Value() {
      this(Ticker.system());
    }

    Value(Ticker ticker) {
      super(ticker, false);
    }
  }
}
