package io.ankusa.claimcheck.cache;

/**
 * A bounded map from what was read to the bytes read, evicting by total byte size; implementations
 * are thread-safe.
 *
 * <p>The arrays it holds and returns are shared, never copied (a hit must stay cheap whatever the
 * claim's size): nobody may modify an array after putting it or after getting it.
 *
 * @param <K> what a value was read as; must have value equality
 */
public interface ClaimCache<K> {

  /** Returns the bytes cached under {@code key}, or null; never blocks and does not allocate. */
  byte[] getIfPresent(K key);

  /** Caches {@code bytes} under {@code key}, possibly evicting others to stay within the bound. */
  void put(K key, byte[] bytes);

  /** Returns the bytes the cache holds now (after pending evictions). */
  long weightedSize();

  /** Returns the bound on {@link #weightedSize()}, in bytes. */
  long maxBytes();

  /** Drops every entry. */
  void invalidateAll();

  /**
   * Returns a cache holding at most {@code maxBytes} bytes of values, evicting the oldest
   * insertions first; 0 caches nothing. A value weighs its length (an empty array weighs 1); a value larger than the bound
   * is not kept.
   */
  static <K> ClaimCache<K> bytesBounded(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("cacheMaxBytes must be >= 0, was " + maxBytes);
    }
    return maxBytes == 0 ? new NoCache<>() : new FifoClaimCache<>(maxBytes);
  }
}
