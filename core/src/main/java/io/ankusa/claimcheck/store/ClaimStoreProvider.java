package io.ankusa.claimcheck.store;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;

/**
 * Opens the claim stores whose URIs in {@code claimcheck.stores} have one of its {@link
 * #schemes()}; implementations are stateless and thread-safe, and are found by {@link
 * java.util.ServiceLoader}.
 *
 * <p>To plug in a store: implement this interface in a public class with a public no-argument
 * constructor, and name that class in {@code
 * META-INF/services/io.ankusa.claimcheck.store.ClaimStoreProvider} of its jar (for a Connect
 * worker, put the jar in the plugin's directory). The built-in providers serve {@code s3}, {@code
 * file} and {@code memory}; two providers claiming one scheme make a configuration that uses it
 * fail.
 *
 * <p>Its per-store settings are a {@link ConfigDef} of names without prefix (such as {@code
 * kv.timeout.ms}): the store at index {@code i} of {@code claimcheck.stores} sets one as {@code
 * claimcheck.store.<i>.<name>}, and every store has the library's own {@link
 * StoreConfig#OP_DEADLINE_MS}. Each value is parsed and validated by the {@code ConfigDef} when the
 * configuration is built, and a bad one fails naming the exact key.
 */
public interface ClaimStoreProvider {

  /** The URI schemes this provider serves, in lower case (such as {@code s3}). */
  Set<String> schemes();

  /**
   * The definition of this provider's per-store settings: names without prefix, each with its type,
   * default, validator, importance and documentation. Must not define {@link
   * StoreConfig#OP_DEADLINE_MS}. Empty when the store has none.
   */
  ConfigDef settings();

  /**
   * Checks one store's {@code uri} and parsed {@code config} when the configuration is built,
   * before any store is opened, so a bad store fails early. Throws {@link IllegalArgumentException}
   * when the URI is not one of this provider's (reported under {@code claimcheck.stores}), or a
   * {@link org.apache.kafka.common.config.ConfigException} naming {@link StoreConfig#keyOf} for a
   * rule across settings. The default accepts everything.
   */
  default void validate(URI uri, StoreConfig config) {}

  /**
   * Opens the store at {@code uri} with its {@code config} (already {@link #validate validated}).
   * Its operations are bounded by the timeouts they are given; closing it releases its resources.
   *
   * @throws IllegalStateException when the store cannot be opened now
   */
  ClaimStore open(URI uri, StoreConfig config);

  /**
   * The parsed per-store settings of one configured store, as its {@link ClaimStoreProvider} sees
   * them: read with the usual getters under the unprefixed names; immutable and thread-safe.
   *
   * <p>Every value was parsed by the provider's {@link ClaimStoreProvider#settings() ConfigDef}:
   * the per-store override when one is set, else the library-wide value of a built-in setting, else
   * the default. {@link #keyOf} names the key a value came from, for messages. Two configs are
   * equal when their values are; {@code toString} never shows a {@code PASSWORD} value.
   */
  final class StoreConfig extends AbstractConfig {

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
}
