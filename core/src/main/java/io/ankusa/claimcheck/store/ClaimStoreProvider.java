package io.ankusa.claimcheck.store;

import java.net.URI;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;

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
}
