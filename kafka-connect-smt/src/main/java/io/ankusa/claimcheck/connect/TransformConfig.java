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
 * The transforms' own key, {@link #CONVERTER}, on top of {@link ClaimCheckConfig}'s; stateless and
 * thread-safe.
 */
final class TransformConfig {

  /** The Connect {@link Converter} that turns the field into the bytes that are stored. */
  static final String CONVERTER = "claimcheck.converter";

  /** The prefix of the converter's own settings, passed to it with the prefix stripped. */
  static final String CONVERTER_PREFIX = CONVERTER + ".";

  static final String DEFAULT_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";

  private static final ConfigDef OWN = own(new ConfigDef());

  /** The keys a transform reads: the library's key policy, with the converter's surface keys. */
  private static final Predicate<String> READS =
      ClaimCheckConfig.keysReadBy(key -> key.equals(CONVERTER) || key.startsWith(CONVERTER_PREFIX));

  /** Every key a transform reads: the core keys and {@link #CONVERTER}. */
  static final ConfigDef CONFIG_DEF = own(new ConfigDef(ClaimCheckConfig.CONFIG_DEF));

  private TransformConfig() {}

  private static ConfigDef own(ConfigDef def) {
    return def.define(
        CONVERTER,
        Type.CLASS,
        DEFAULT_CONVERTER,
        (name, value) -> {
          if (value != null && !Converter.class.isAssignableFrom((Class<?>) value)) {
            throw new ConfigException(
                name, ((Class<?>) value).getName(), "not a " + Converter.class.getName());
          }
        },
        HIGH,
        "The Connect converter between the field and the bytes that are checked in (CheckIn) or"
            + " redeemed (Redeem); it must produce what the consumers' inner deserializer reads"
            + " (e.g. JsonConverter with schemas.enable=false for a JSON deserializer). Its own"
            + " settings go under the prefix claimcheck.converter. (e.g."
            + " claimcheck.converter.schemas.enable=false).");
  }

  /**
   * Whether a transform reads {@code key}: a core key (the per-store overrides included), {@link
   * #CONVERTER}, a converter setting, or any key outside {@code claimcheck.} (the worker's own).
   */
  static boolean isTransformKey(String key) {
    return READS.test(key);
  }

  /**
   * Refuses a {@code claimcheck.} key no transform reads, with a {@link ConfigException} naming it
   * but never showing its value (a misspelt secret key is still a secret).
   */
  static void refuseUnknownKeys(Map<String, ?> props) {
    Secrets.refuseUnknown(
        props,
        ClaimCheckConfig.PREFIX,
        TransformConfig::isTransformKey,
        "the Connect transforms ("
            + new TreeSet<>(CONFIG_DEF.names())
            + ", "
            + CONVERTER_PREFIX
            + "*)");
  }

  /** Returns the validated converter class of {@code props}. */
  static Class<?> converterClass(Map<String, ?> props) {
    Map<String, Object> own = new HashMap<>();
    if (props.containsKey(CONVERTER)) {
      own.put(CONVERTER, props.get(CONVERTER));
    }
    try {
      return (Class<?>) OWN.parse(own).get(CONVERTER);
    } catch (ConfigException e) {
      throw Secrets.scrubbed(e, props, TransformConfig::isTransformKey);
    }
  }

  /** Returns the converter's own settings: the {@code claimcheck.converter.} keys, unprefixed. */
  static Map<String, Object> converterSettings(Map<String, ?> props) {
    Map<String, Object> settings = new HashMap<>();
    props.forEach(
        (k, v) -> {
          if (k.startsWith(CONVERTER_PREFIX) && k.length() > CONVERTER_PREFIX.length()) {
            settings.put(k.substring(CONVERTER_PREFIX.length()), v);
          }
        });
    return settings;
  }
}
