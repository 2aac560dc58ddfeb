package io.ankusa.claimcheck.connect;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.Secrets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.storage.Converter;

/**
 * {@link ClaimCheckConverter}'s own key, {@link #INNER}, on top of {@link ClaimCheckConfig}'s;
 * stateless and thread-safe.
 */
final class ConverterConfig {

  /** The Connect {@link Converter} between the field and the bytes that are checked in. */
  static final String INNER = "claimcheck.converter.inner";

  /** The prefix of the inner converter's own settings, passed to it with the prefix stripped. */
  static final String INNER_PREFIX = INNER + ".";

  private static final ConfigDef OWN = own(new ConfigDef());

  /** The keys the converter reads: the library's key policy, with the inner converter's keys. */
  private static final Predicate<String> READS =
      ClaimCheckConfig.keysReadBy(key -> key.equals(INNER) || key.startsWith(INNER_PREFIX));

  /** Every key the converter reads: the core keys and {@link #INNER}. */
  static final ConfigDef CONFIG_DEF = own(new ConfigDef(ClaimCheckConfig.CONFIG_DEF));

  private ConverterConfig() {}

  private static ConfigDef own(ConfigDef def) {
    return def.define(
        INNER,
        Type.CLASS,
        TransformConfig.DEFAULT_CONVERTER,
        (name, value) -> {
          if (value != null && !Converter.class.isAssignableFrom((Class<?>) value)) {
            throw new ConfigException(
                name, ((Class<?>) value).getName(), "not a " + Converter.class.getName());
          }
          if (value == ClaimCheckConverter.class) {
            throw new ConfigException(name, ClaimCheckConverter.class.getName(), "cannot nest");
          }
        },
        HIGH,
        "ClaimCheckConverter only: the Connect converter it wraps (e.g. JsonConverter, a"
            + " registry-backed Avro converter). fromConnectData serializes with it, then checks"
            + " the bytes in at or above claimcheck.threshold.bytes; toConnectData redeems a ref,"
            + " then hands the bytes to it. Its own settings go under the prefix"
            + " claimcheck.converter.inner. (e.g. claimcheck.converter.inner.schemas.enable=false).");
  }

  /** Whether the converter reads {@code key} (a core key, {@link #INNER} or an inner setting). */
  static boolean isConverterKey(String key) {
    return READS.test(key);
  }

  /** Refuses a {@code claimcheck.} key the converter does not read, never showing its value. */
  static void refuseUnknownKeys(Map<String, ?> props) {
    Secrets.refuseUnknown(
        props,
        ClaimCheckConfig.PREFIX,
        ConverterConfig::isConverterKey,
        "ClaimCheckConverter (" + new TreeSet<>(CONFIG_DEF.names()) + ", " + INNER_PREFIX + "*)");
  }

  /** Returns the validated inner converter class of {@code props}. */
  static Class<?> innerClass(Map<String, ?> props) {
    Map<String, Object> own = new HashMap<>();
    if (props.containsKey(INNER)) {
      own.put(INNER, props.get(INNER));
    }
    try {
      return (Class<?>) OWN.parse(own).get(INNER);
    } catch (ConfigException e) {
      throw Secrets.scrubbed(e, props, ConverterConfig::isConverterKey);
    }
  }

  /** Returns the inner converter's own settings: the {@code claimcheck.converter.inner.} keys. */
  static Map<String, Object> innerSettings(Map<String, ?> props) {
    Map<String, Object> settings = new HashMap<>();
    props.forEach(
        (k, v) -> {
          if (k.startsWith(INNER_PREFIX) && k.length() > INNER_PREFIX.length()) {
            settings.put(k.substring(INNER_PREFIX.length()), v);
          }
        });
    return settings;
  }
}
