package io.ankusa.claimcheck.store;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;

/**
 * The parsed per-store settings of one configured store, as its {@link ClaimStoreProvider} sees
 * them: read with the usual getters under the unprefixed names; immutable and thread-safe.
 *
 * <p>Every value was parsed by the provider's {@link ClaimStoreProvider#settings() ConfigDef}: the
 * per-store override when one is set, else the library-wide value of a built-in setting, else the
 * default. {@link #keyOf} names the key a value came from, for messages. Two configs are equal when
 * their values are; {@code toString} never shows a {@code PASSWORD} value.
 */
public final class StoreConfig extends AbstractConfig {

  /**
   * The deadline of one operation on the store, in milliseconds; every store has it (library-wide
   * {@code claimcheck.store.op.deadline.ms}).
   */
  public static final String OP_DEADLINE_MS = "op.deadline.ms";

  private final int index;
  private final Map<String, String> keys;

  /**
   * Makes the settings of store {@code index} from {@code values} already parsed by {@code
   * definition}; {@code keys} maps each name to the config key its value came from. Built by the
   * library, not by providers.
   */
  public StoreConfig(
      ConfigDef definition, Map<String, ?> values, int index, Map<String, String> keys) {
    super(definition, values, Map.of(), false);
    this.index = index;
    this.keys = Map.copyOf(keys);
  }

  /** The store's index in {@code claimcheck.stores}. */
  public int index() {
    return index;
  }

  /** The deadline of one operation on the store ({@link #OP_DEADLINE_MS}). */
  public Duration opDeadline() {
    return Duration.ofMillis(getLong(OP_DEADLINE_MS));
  }

  /**
   * The config key the setting {@code name} was read from, such as {@code
   * claimcheck.store.1.s3.endpoint} or the library-wide {@code claimcheck.s3.endpoint}: the key a
   * {@code ConfigException} about it names.
   */
  public String keyOf(String name) {
    return Objects.requireNonNullElse(keys.get(name), "claimcheck.store." + index + "." + name);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoreConfig c && c.index == index && c.values().equals(values());
  }

  @Override
  public int hashCode() {
    return values().hashCode() * 31 + index;
  }

  @Override
  public String toString() {
    Map<String, Object> shown = new TreeMap<>();
    values().forEach((k, v) -> shown.put(k, v instanceof Password ? Password.HIDDEN : v));
    return shown.toString();
  }
}
