package io.ankusa.claimcheck.internal.cache;

/** The cache that keeps nothing ({@code cacheMaxBytes = 0}); stateless and thread-safe. */
final class NoCache<K> implements ClaimCache<K> {

  @Override
  public byte[] getIfPresent(K key) {
    return null;
  }

  @Override
  public void put(K key, byte[] bytes) {}

  @Override
  public void remove(K key, byte[] bytes) {}

  @Override
  public long weightedSize() {
    return 0;
  }

  @Override
  public long maxBytes() {
    return 0;
  }

  @Override
  public void invalidateAll() {}
}
