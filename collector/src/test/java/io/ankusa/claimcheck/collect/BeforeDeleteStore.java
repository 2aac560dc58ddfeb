package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A real store seen by a collector that runs a hook just before its first batch delete goes out,
 * after the listing and every check the sweep makes; thread-safe for one collection.
 */
final class BeforeDeleteStore implements ClaimStore {

  private final ClaimStore inner;
  private volatile Runnable beforeDelete;

  BeforeDeleteStore(ClaimStore inner, Runnable beforeDelete) {
    this.inner = inner;
    this.beforeDelete = beforeDelete;
  }

  @Override
  public CompletableFuture<Void> deleteAll(List<String> keys, Duration timeout) {
    Runnable hook = beforeDelete;
    beforeDelete = null;
    if (hook != null) {
      hook.run();
    }
    return inner.deleteAll(keys, timeout);
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    return inner.putIfAbsent(key, bytes, timeout);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    return inner.put(key, bytes, timeout);
  }

  @Override
  public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
    return inner.stat(key, timeout);
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration t) {
    return inner.getRange(key, offset, length, t);
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    return inner.delete(key, timeout);
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String continuation, Duration t) {
    return inner.list(prefix, continuation, t);
  }

  @Override
  public String describe() {
    return inner.describe();
  }

  @Override
  public void close() {
    inner.close();
  }
}
