package io.ankusa.claimcheck.store.memory;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Serves {@code memory:<name>} stores: process-wide in-memory stores, one per name, so a serializer
 * and a deserializer configured alike share objects (demos and quick starts; nothing survives the
 * process); thread-safe.
 */
public final class MemoryStoreProvider implements ClaimStoreProvider {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Map<String, InMemoryStore> NAMED = new ConcurrentHashMap<>();

  @Override
  public Set<String> schemes() {
    return Set.of("memory");
  }

  @Override
  public ConfigDef settings() {
    return new ConfigDef();
  }

  @Override
  public void validate(URI uri, StoreConfig config) {
    name(uri, "memory");
  }

  /**
   * The process-wide store of {@code uri}'s name; closing it leaves it (and its objects) in place.
   */
  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    return NAMED.computeIfAbsent(name(uri, "memory"), InMemoryStore::new);
  }

  /** The store name of an opaque {@code <scheme>:<name>} URI, or a failure saying the form. */
  static String name(URI uri, String scheme) {
    String name = uri.getRawSchemeSpecificPart();
    if (!uri.isOpaque() || uri.getRawFragment() != null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a " + scheme + " store is " + scheme + ":<name>, name of [A-Za-z0-9._-]");
    }
    return name;
  }
}
