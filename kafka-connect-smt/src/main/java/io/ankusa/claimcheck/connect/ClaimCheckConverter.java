package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.PluginLifecycle;
import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.Secrets;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.storage.Converter;

/**
 * A Connect {@link Converter} that wraps an inner converter ({@code claimcheck.converter.inner},
 * default {@code ByteArrayConverter}) and claim-checks what it produces; thread-safe once
 * configured.
 *
 * <ul>
 *   <li>{@link #fromConnectData(String, Headers, Schema, Object)} converts with the inner converter
 *       and, at or above {@code claimcheck.threshold.bytes} (or, whatever their size, when the
 *       bytes start with the ref magic), checks them in and returns the ref, marking the record
 *       ({@code ankusa.claimcheck.value} / {@code .key}); below it returns the inner bytes and
 *       removes a stale marker. A key converter checks keys in under content-derived pack ids
 *       (choosing this converter for keys is the opt-in).
 *   <li>{@link #toConnectData(String, Headers, byte[])} redeems a field that carries a ref (core's
 *       {@link RefFields} rule: the bytes decide, the marker is a hint) and hands the claimed bytes
 *       to the inner converter; anything else goes to it as it is. Headers are left as they are.
 * </ul>
 *
 * <p>The stored bytes, the ref and the marker are what {@code ClaimCheckSerializer} and {@link
 * CheckIn} write, and what {@code ClaimCheckDeserializer} and {@link Redeem} read: the steps are
 * {@link FieldClaims}'. A store that cannot answer throws a {@code RetriableException}; a claim
 * that is gone, corrupt or refused a {@code DataException} (so {@code errors.tolerance} and the
 * dead-letter queue decide); an {@link Error} is rethrown as itself.
 */
public class ClaimCheckConverter implements Converter, Versioned {

  private final Ticker ticker;
  private final PluginLifecycle<State> lifecycle =
      new PluginLifecycle<>("ClaimCheckConverter", ConverterConfig.INNER);

  private record State(
      ClaimCheck claimCheck, Converter inner, boolean isKey, int threshold, long deadlineNanos) {}

  /** The converter, as a worker instantiates it by class name. */
  public ClaimCheckConverter() {
    this(Ticker.system());
  }

  ClaimCheckConverter(Ticker ticker) {
    this.ticker = ticker;
  }

  /**
   * Validates {@code configs} (a {@code ConfigException} names a bad key), configures the inner
   * converter and opens the claim check; configured again, it releases the earlier ones.
   */
  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    ConverterConfig.refuseUnknownKeys(configs);
    ClaimCheckConfig config = new ClaimCheckConfig(configs);
    Converter inner = inner(configs, isKey);
    int threshold = config.getInt(ClaimCheckConfig.THRESHOLD_BYTES);
    long deadline = config.readDeadline().toNanos();
    lifecycle.open(
        config, configs, ticker, inner, cc -> new State(cc, inner, isKey, threshold, deadline));
  }

  private static Converter inner(Map<String, ?> configs, boolean isKey) {
    Class<?> type = ConverterConfig.innerClass(configs);
    try {
      Converter converter = (Converter) Utils.newInstance(type);
      converter.configure(ConverterConfig.innerSettings(configs), isKey);
      return converter;
    } catch (RuntimeException e) {
      // Its message may quote its settings: secret-named ones are scrubbed out, the cause dropped.
      throw new ConfigException(
          ConverterConfig.INNER,
          type.getName(),
          "cannot be set up with its settings under "
              + ConverterConfig.INNER_PREFIX
              + ": "
              + Secrets.scrub(e.getMessage(), configs, ConverterConfig::isConverterKey));
    }
  }

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    return fromConnectData(topic, null, schema, value);
  }

  @Override
  public byte[] fromConnectData(String topic, Headers headers, Schema schema, Object value) {
    State s = lifecycle.get();
    byte[] bytes =
        headers == null
            ? s.inner.fromConnectData(topic, schema, value)
            : s.inner.fromConnectData(topic, headers, schema, value);
    String marker = RefFields.marker(s.isKey);
    if (!FieldClaims.checksIn(bytes, s.threshold)) {
      if (headers != null && headers.lastHeader(marker) != null) {
        headers.remove(marker); // a stale marker: the field written now is inline
      }
      return bytes;
    }
    ClaimRef ref = FieldClaims.checkIn(s.claimCheck, s.isKey, bytes, () -> where(s, topic));
    if (headers != null) {
      headers.remove(marker);
      headers.add(marker, RefFields.markerValue(ref.version()).getBytes(StandardCharsets.US_ASCII));
    }
    return RefCodec.encode(ref);
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    return toConnectData(topic, null, value);
  }

  @Override
  public SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
    State s = lifecycle.get();
    boolean marked = headers != null && headers.lastHeader(RefFields.marker(s.isKey)) != null;
    byte[] bytes =
        FieldClaims.redeem(
            s.claimCheck,
            s.isKey,
            marked,
            value,
            ticker.read() + s.deadlineNanos,
            () -> where(s, topic));
    return headers == null
        ? s.inner.toConnectData(topic, bytes)
        : s.inner.toConnectData(topic, headers, bytes);
  }

  private static String where(State s, String topic) {
    return "the " + (s.isKey ? "key" : "value") + " of a record for topic " + topic;
  }

  /** Every key this converter reads: the {@code claimcheck.*} keys and the inner converter's. */
  @Override
  public ConfigDef config() {
    return ConverterConfig.CONFIG_DEF;
  }

  @Override
  public String version() {
    return Version.get();
  }

  /** Closes the inner converter and releases the claim check; idempotent. */
  @Override
  public void close() {
    lifecycle.close();
  }
}
