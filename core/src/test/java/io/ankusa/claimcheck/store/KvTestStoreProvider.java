package io.ankusa.claimcheck.store;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;

import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * A store plugged in the way a user would: a provider of the scheme {@code test-kv:<space>},
 * registered only in core's test resources, that keeps objects in a map per space; stateless and
 * thread-safe (the spaces are process-wide, like a remote key-value service would be).
 *
 * <p>Its settings show the per-store parsing: {@code test-kv.key.prefix} (put before every key) and
 * {@code test-kv.max.object.bytes} (larger puts are {@code FORBIDDEN}), set as {@code
 * claimcheck.store.<i>.test-kv.*}.
 */
public final class KvTestStoreProvider implements ClaimStoreProvider {

  static final String KEY_PREFIX = "test-kv.key.prefix";
  static final String MAX_OBJECT_BYTES = "test-kv.max.object.bytes";

  /** Every space's objects, by space then full key. */
  static final Map<String, Map<String, byte[]>> SPACES = new ConcurrentHashMap<>();

  /** When each object was last written, by space, a NUL, then full key. */
  static final Map<String, Instant> WRITTEN = new ConcurrentHashMap<>();

  /** The spaces that answer every operation {@code UNAVAILABLE}. */
  static final Set<String> DOWN = ConcurrentHashMap.newKeySet();

  private static final ConfigDef SETTINGS =
      new ConfigDef()
          .define(
              KEY_PREFIX,
              Type.STRING,
              "",
              (name, value) -> {
                if (value == null || !((String) value).matches("[a-z0-9/-]*")) {
                  throw new ConfigException(name, value, "a key prefix is of [a-z0-9/-]");
                }
              },
              LOW,
              "Put before every key.")
          .define(
              MAX_OBJECT_BYTES,
              Type.INT,
              1 << 20,
              Range.between(1, 64 << 20),
              LOW,
              "The largest object a put accepts.");

  @Override
  public Set<String> schemes() {
    return Set.of("test-kv");
  }

  @Override
  public ConfigDef settings() {
    return SETTINGS;
  }

  @Override
  public void validate(URI uri, StoreConfig config) {
    space(uri);
  }

  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    String space = space(uri);
    return new KvStore(
        space,
        SPACES.computeIfAbsent(space, s -> new ConcurrentHashMap<>()),
        config.getString(KEY_PREFIX),
        config.getInt(MAX_OBJECT_BYTES));
  }

  private static String space(URI uri) {
    if (!uri.isOpaque() || !uri.getSchemeSpecificPart().matches("[a-z0-9-]{1,32}")) {
      throw new IllegalArgumentException("a test-kv store is test-kv:<space>, space of [a-z0-9-]");
    }
    return uri.getSchemeSpecificPart();
  }

  /** One space seen through one configuration; thread-safe (one concurrent map). */
  static final class KvStore implements ClaimStore {
    private final String space;
    private final Map<String, byte[]> objects;
    private final String prefix;
    private final int maxBytes;
    private final Instant created = Instant.now();

    KvStore(String space, Map<String, byte[]> objects, String prefix, int maxBytes) {
      this.space = space;
      this.objects = objects;
      this.prefix = prefix;
      this.maxBytes = maxBytes;
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
      if (DOWN.contains(space)) {
        return failed(StoreException.Kind.UNAVAILABLE, "down");
      }
      if (bytes.length > maxBytes) {
        return failed(StoreException.Kind.FORBIDDEN, bytes.length + " bytes > " + maxBytes);
      }
      if (objects.putIfAbsent(prefix + key, bytes.clone()) != null) {
        return failed(StoreException.Kind.ALREADY_EXISTS, key);
      }
      WRITTEN.put(space + "\0" + prefix + key, Instant.now());
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
      if (DOWN.contains(space)) {
        return failed(StoreException.Kind.UNAVAILABLE, "down");
      }
      if (bytes.length > maxBytes) {
        return failed(StoreException.Kind.FORBIDDEN, bytes.length + " bytes > " + maxBytes);
      }
      objects.put(prefix + key, bytes.clone());
      WRITTEN.put(space + "\0" + prefix + key, Instant.now());
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<byte[]> getRange(
        String key, long offset, int length, Duration timeout) {
      if (DOWN.contains(space)) {
        return failed(StoreException.Kind.UNAVAILABLE, "down");
      }
      byte[] o = objects.get(prefix + key);
      if (o == null) {
        return failed(StoreException.Kind.NOT_FOUND, key);
      }
      int from = (int) Math.min(offset, o.length);
      return CompletableFuture.completedFuture(
          Arrays.copyOfRange(o, from, (int) Math.min((long) from + length, o.length)));
    }

    @Override
    public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
      if (DOWN.contains(space)) {
        return failed(StoreException.Kind.UNAVAILABLE, "down");
      }
      byte[] o = objects.get(prefix + key);
      if (o == null) {
        return failed(StoreException.Kind.NOT_FOUND, key);
      }
      return CompletableFuture.completedFuture(
          new StoredObject(
              key, o.length, WRITTEN.getOrDefault(space + "\0" + prefix + key, created)));
    }

    @Override
    public CompletableFuture<Void> delete(String key, Duration timeout) {
      if (DOWN.contains(space)) {
        return failed(StoreException.Kind.UNAVAILABLE, "down");
      }
      objects.remove(prefix + key);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<ListPage> list(
        String keyPrefix, String continuation, Duration timeout) {
      if (DOWN.contains(space)) {
        return failed(StoreException.Kind.UNAVAILABLE, "down");
      }
      List<StoredObject> page = new ArrayList<>();
      for (String full : new TreeSet<>(objects.keySet())) {
        String key = full.startsWith(prefix) ? full.substring(prefix.length()) : null;
        if (key != null
            && key.startsWith(keyPrefix)
            && (continuation == null || key.compareTo(continuation) > 0)) {
          byte[] o = objects.get(full);
          if (o != null) {
            page.add(
                new StoredObject(
                    key, o.length, WRITTEN.getOrDefault(space + "\0" + full, created)));
          }
        }
      }
      return CompletableFuture.completedFuture(new ListPage(page, null));
    }

    @Override
    public String describe() {
      return "test-kv:" + space;
    }

    @Override
    public void close() {}

    private static <T> CompletableFuture<T> failed(StoreException.Kind kind, String message) {
      return CompletableFuture.failedFuture(new StoreException(kind, "test-kv:" + message));
    }
  }
}
