package io.ankusa.claimcheck.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * A {@link ClaimCache} on a Caffeine cache weighed in bytes; thread-safe.
 *
 * <p>Invariants: the sum of the lengths held (empty arrays counting 1) stays within {@code
 * maxBytes} once Caffeine's maintenance has run; maintenance runs on the calling thread, so after
 * {@link #put} returns the bound holds and eviction needs no pool thread; a read is Caffeine's
 * {@code getIfPresent} and nothing more.
 */
final class CaffeineClaimCache<K> implements ClaimCache<K> {

  private final Cache<K, byte[]> cache;
  private final long maxBytes;

  CaffeineClaimCache(long maxBytes) {
    this.maxBytes = maxBytes;
    this.cache =
        Caffeine.newBuilder()
            .maximumWeight(maxBytes)
            .weigher((K k, byte[] v) -> Math.max(1, v.length))
            .executor(Runnable::run)
            .build();
  }

  @Override
  public byte[] getIfPresent(K key) {
    return cache.getIfPresent(key);
  }

  @Override
  public void put(K key, byte[] bytes) {
    if (bytes.length <= maxBytes) {
      cache.put(key, bytes);
    }
  }

  @Override
  public long weightedSize() {
    cache.cleanUp();
    return cache.policy().eviction().orElseThrow().weightedSize().orElse(0L);
  }

  @Override
  public long maxBytes() {
    return maxBytes;
  }

  @Override
  public void invalidateAll() {
    cache.invalidateAll();
  }
}
