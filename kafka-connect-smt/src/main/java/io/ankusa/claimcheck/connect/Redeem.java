package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.Ticker;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * Sink-side transform: redeems a claim-check ref in the record's key ({@link Key}) or value ({@link
 * Value}) and converts the bytes with the configured converter into a schema and value; not
 * thread-safe (a worker gives each task its own instance).
 *
 * <p>Reads what {@code ClaimCheckSerializer} and {@link CheckIn} write: a field carries a ref when
 * the record has the marker header or, on a record without any headers, when its bytes are an
 * intact ref frame (magic and CRC). Any other field is converted as it is.
 */
public abstract class Redeem<R extends ConnectRecord<R>> implements Transformation<R> {

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
          + " dead-letter queue decide.";

  /** Every key this transform reads: the {@code claimcheck.*} keys and the converter's. */
  public static final ConfigDef CONFIG_DEF = TransformConfig.CONFIG_DEF;

  /** How long past a redeem's deadline to wait for the reader's own deadline answer. */
  private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final Ticker ticker;
  private Handle handle;
  private long deadlineNanos;

  Redeem(Ticker ticker) {
    this.ticker = ticker;
  }

  @Override
  public void configure(Map<String, ?> props) {
    Handle opened = Handle.open(props, isKey(), ticker);
    Handle previous = handle;
    handle = opened;
    deadlineNanos = opened.claimCheck().config().readDeadline().toNanos();
    if (previous != null) {
      previous.close();
    }
  }

  @Override
  public R apply(R record) {
    Handle h = handle();
    byte[] bytes = bytes(operatingValue(record), record);
    Headers headers = record.headers().duplicate();
    String marker = ClaimCheckHeaders.marker(isKey());
    boolean carriesRef =
        bytes != null
            && (headers.lastWithName(marker) != null
                || (headers.isEmpty() && RefCodec.isRef(bytes)));
    headers.remove(marker); // after a redeem the field is no longer a ref
    byte[] payload = carriesRef ? redeem(h, decode(bytes, record), record) : bytes;
    SchemaAndValue converted;
    try {
      converted = h.converter().toConnectData(record.topic(), payload);
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
    return newRecord(record, converted.schema(), converted.value(), headers);
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

  private ClaimRef decode(byte[] bytes, R record) {
    try {
      return RefCodec.decode(bytes);
    } catch (MalformedRefException e) {
      throw new DataException(
          ClaimCheckFailure.Reason.REFUSED
              + ": the "
              + fieldName()
              + " of "
              + Failures.describe(record)
              + " is marked as a claim-check ref but is not one: "
              + e.getMessage(),
          e);
    }
  }

  private byte[] redeem(Handle h, ClaimRef ref, R record) {
    ClaimCheck cc = h.claimCheck();
    String claim = "claim " + ref.tenant().value() + "/" + ref.claimId() + ": ";
    // The process-wide request gate (claimcheck.max.concurrent.reads); the permit is this
    // thread's, so it is released here, on the same thread.
    if (!cc.reader().admit()) {
      throw Failures.unavailable(
          claim
              + "overloaded: "
              + ClaimCheckConfig.MAX_CONCURRENT_READS
              + " redeems are already being served in this process",
          record,
          fieldName(),
          null);
    }
    try {
      long deadline = ticker.read() + deadlineNanos;
      CompletableFuture<byte[]> f = cc.redeem(ref, deadline);
      long wait = Math.max(0, deadline - ticker.read()) + GRACE_NANOS;
      try {
        return f.get(wait, TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof ClaimCheckFailure failure) {
          throw Failures.toConnect(failure, record, fieldName());
        }
        throw Failures.unavailable(
            claim + "redeem failed: " + e.getCause(), record, fieldName(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        f.cancel(false);
        throw Failures.unavailable(claim + "interrupted while redeeming", record, fieldName(), e);
      } catch (TimeoutException e) {
        f.cancel(false);
        throw Failures.unavailable(
            claim + "no answer within " + ClaimCheckConfig.READ_DEADLINE_MS,
            record,
            fieldName(),
            e);
      }
    } finally {
      cc.reader().release();
    }
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

  protected abstract Object operatingValue(R record);

  protected abstract R newRecord(R record, Schema schema, Object value, Headers headers);

  /** Redeems record keys. */
  public static class Key<R extends ConnectRecord<R>> extends Redeem<R> {

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
    protected Object operatingValue(R record) {
      return record.key();
    }

    @Override
    protected R newRecord(R record, Schema schema, Object value, Headers headers) {
      return RecordFields.withKey(record, schema, value, headers);
    }
  }

  /** Redeems record values. */
  public static class Value<R extends ConnectRecord<R>> extends Redeem<R> {

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
    protected Object operatingValue(R record) {
      return record.value();
    }

    @Override
    protected R newRecord(R record, Schema schema, Object value, Headers headers) {
      return RecordFields.withValue(record, schema, value, headers);
    }
  }
}
