package io.ankusa.claimcheck.store.memory;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A claim store in this process's memory, for demos and tests; thread-safe, every operation
 * completes at once.
 *
 * <p>Invariants: objects live in a concurrent map and are copied in and out, so a caller never
 * shares an array with the store; put-if-absent is one {@code putIfAbsent} on that map, hence
 * atomic; an object's last-modified time is recorded after it is stored and removed after it is
 * deleted, so a listing shows only objects that have both.
 */
final class InMemoryStore implements ClaimStore {

  private static final int PAGE = 1000;

  /** The largest object a streamed write may put here: the largest array. */
  static final int MAX_OBJECT = Integer.MAX_VALUE - 8;

  private final String name;
  private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
  private final Map<String, Instant> written = new ConcurrentHashMap<>();
  private volatile Clock wallClock = Clock.systemUTC();

  InMemoryStore(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    byte[] copy = bytes.clone();
    if (objects.putIfAbsent(key, copy) != null) {
      return failed(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
    }
    written.put(key, wallClock.instant());
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Reads {@code source} into one array (this store holds its objects in memory anyway; at most
   * {@link #MAX_OBJECT} bytes, else {@code UNAVAILABLE}), then puts it if absent, atomically.
   */
  @Override
  public long putStreamIfAbsent(String key, InputStream source, long length, Duration timeout)
      throws IOException {
    if (length > MAX_OBJECT) {
      throw new StoreException(
          Kind.UNAVAILABLE, describe() + " holds objects of at most " + MAX_OBJECT + " bytes");
    }
    byte[] bytes;
    if (length == UNKNOWN_LENGTH) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[64 << 10];
      for (int n; (n = source.read(buf)) >= 0; ) {
        if ((long) out.size() + n > MAX_OBJECT) {
          throw new StoreException(
              Kind.UNAVAILABLE, describe() + " holds objects of at most " + MAX_OBJECT + " bytes");
        }
        out.write(buf, 0, n);
      }
      bytes = out.toByteArray();
    } else {
      bytes = source.readNBytes((int) length);
      if (bytes.length < length) {
        throw new EOFException(
            "the source ended after " + bytes.length + " of " + length + " bytes");
      }
    }
    if (objects.putIfAbsent(key, bytes) != null) {
      throw new StoreException(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
    }
    written.put(key, wallClock.instant());
    return bytes.length;
  }

  /** Replaces the object in one map write, then records its last-modified time. */
  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    objects.put(key, bytes.clone());
    written.put(key, wallClock.instant());
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    byte[] object = objects.get(key);
    if (object == null) {
      return failed(Kind.NOT_FOUND, describe() + " has no " + key);
    }
    int from = (int) Math.min(offset, object.length);
    int to = (int) Math.min((long) from + length, object.length);
    return CompletableFuture.completedFuture(Arrays.copyOfRange(object, from, to));
  }

  @Override
  public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
    byte[] o = objects.get(key);
    Instant at = written.get(key);
    if (o == null || at == null) {
      return failed(Kind.NOT_FOUND, describe() + " has no " + key);
    }
    return CompletableFuture.completedFuture(new StoredObject(key, o.length, at));
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    objects.remove(key);
    written.remove(key);
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    List<StoredObject> page = new ArrayList<>();
    for (String key : new TreeSet<>(objects.keySet())) {
      if (!key.startsWith(keyPrefix)
          || (continuation != null && key.compareTo(continuation) <= 0)) {
        continue;
      }
      if (page.size() == PAGE) {
        return CompletableFuture.completedFuture(new ListPage(page, page.get(PAGE - 1).key()));
      }
      byte[] o = objects.get(key);
      Instant at = written.get(key);
      if (o != null && at != null) {
        page.add(new StoredObject(key, o.length, at));
      }
    }
    return CompletableFuture.completedFuture(new ListPage(page, null));
  }

  /** The keys held now. */
  Set<String> keys() {
    return new TreeSet<>(objects.keySet());
  }

  /** A copy of the object under {@code key}, or null. */
  byte[] object(String key) {
    byte[] o = objects.get(key);
    return o == null ? null : o.clone();
  }

  /** Removes every object. */
  void clearObjects() {
    objects.clear();
    written.clear();
  }

  /** Makes later puts record their last-modified time on {@code clock} (default: system UTC). */
  void wallClock(Clock clock) {
    this.wallClock = Objects.requireNonNull(clock, "clock");
  }

  /** Sets the last-modified time a listing reports for the object under {@code key}, if any. */
  void lastModified(String key, Instant at) {
    if (objects.containsKey(key)) {
      written.put(key, at);
    }
  }

  @Override
  public String describe() {
    return "memory:" + name;
  }

  /** Nothing to release: a named store lives as long as the process. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return describe();
  }

  private static <T> CompletableFuture<T> failed(Kind kind, String message) {
    return CompletableFuture.failedFuture(new StoreException(kind, message));
  }
}
