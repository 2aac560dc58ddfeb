package io.ankusa.claimcheck.internal.cache;

/**
 * A bounded map from what was read to the bytes read, evicting by total byte size, that can pin the
 * answer of a prefetch until its first read; implementations are thread-safe.
 *
 * <p>The arrays it holds and returns are shared, never copied (a hit must stay cheap whatever the
 * claim's size), and the cache does not promise they are unchanged: the one who fetched an array
 * may have handed it on as its caller's own (a redeem of an uncompressed claim returns the array it
 * fetched to the application, which may write into it) while the cache keeps it. So whoever takes
 * bytes out of the cache must copy them first and then verify the copy before trusting it (the
 * redeemer checks the copy's CRC32C against its ref); a copy that fails its check means the entry
 * was changed: {@link #remove} it and fetch again. Nobody but the one an array was handed to may
 * write into it.
 *
 * <p>Pins (see {@link #register}) let a prefetcher fetch a claim ahead of its reader without the
 * cache evicting it before the reader asks: a pinned entry is not evicted, its bytes count in
 * {@link #weightedSize()}, and the bytes all pins may hold together are reserved up front, within
 * {@link #maxBytes()}, so the bound stays honest. A pin ends at the first lookup of its key by
 * anyone but the prefetch itself (the read it was waiting for), or when its prefetcher releases it.
 *
 * @param <K> what a value was read as; must have value equality
 */
public interface ClaimCache<K> {

  /**
   * Returns the bytes cached under {@code key}, or null; never blocks and does not allocate. A
   * lookup is a read: it ends a live pin of {@code key} (whether its bytes have arrived or not) and
   * tells the pin's listener, on the calling thread, before returning.
   */
  byte[] getIfPresent(K key);

  /**
   * Caches {@code bytes} under {@code key}, possibly evicting others to stay within the bound; the
   * bytes of a started pin of {@code key} stay pinned.
   */
  void put(K key, byte[] bytes);

  /**
   * Drops the entry of {@code key} if it holds exactly {@code bytes} (the same array, not equal
   * bytes), as a copy of it failed its check: a later put of fresh bytes is never dropped by a
   * stale verdict. A live pin of the entry is released (its reservation returned).
   */
  void remove(K key, byte[] bytes);

  /** Returns the bytes the cache holds now (after pending evictions), pinned bytes included. */
  long weightedSize();

  /** Returns the bound on {@link #weightedSize()}, in bytes. */
  long maxBytes();

  /** Returns the bytes reserved by started pins that have not ended. */
  default long pinnedBytes() {
    return 0;
  }

  /** Drops every entry (pins stay reserved until their prefetchers release them). */
  void invalidateAll();

  /**
   * Registers the intent to prefetch {@code key} and returns its {@link Pin}, {@link
   * Pin.State#PENDING}; or null when there is nothing to prefetch into: the cache keeps nothing, or
   * it holds {@code key}'s bytes already. {@code listener} hears the read that ends the pin.
   */
  default Pin register(K key, PinListener listener) {
    return null;
  }

  /**
   * One prefetch's hold on one key; thread-safe. The state moves PENDING → (STARTING → PINNED) →
   * READ or RELEASED, and never leaves READ or RELEASED.
   */
  interface Pin {

    /** Where a pin is in its life. */
    enum State {
      /** Registered; its fetch has not started, nothing is reserved. */
      PENDING,
      /** Its fetch is being started by the thread that called {@link #start}. */
      STARTING,
      /** Its fetch started; its bytes, once they arrive, are not evicted. */
      PINNED,
      /** Someone looked the key up: the pin has served its purpose. */
      READ,
      /** Its prefetcher gave it up. */
      RELEASED
    }

    /** What {@link #start} did. */
    enum Start {
      /** Reserved; now STARTING: start the fetch, then call {@link #started()}. */
      STARTED,
      /**
       * Not started and never will be: read already, released, the bytes are cached, or they weigh
       * more than the whole cache.
       */
      GONE,
      /** Still PENDING: the pins of the cache hold all it may reserve; try again later. */
      NO_ROOM
    }

    /**
     * Reserves {@code weight} bytes (the stored size of what the fetch will put) and moves a
     * PENDING pin to STARTING; until {@link #started()}, lookups of the key by the calling thread
     * (the prefetch's own) do not end the pin. A pin found GONE is RELEASED.
     */
    Start start(long weight);

    /** Ends STARTING: moves the pin to PINNED unless a read ended it meanwhile. */
    void started();

    /**
     * Gives the pin up: a live pin becomes RELEASED, its reservation is returned and its bytes, if
     * they arrived, become an ordinary (evictable) entry; does nothing to an ended pin.
     */
    void release();

    /** Returns the pin's state now. */
    State state();
  }

  /** Hears the read that ended a pin; must not block (it runs on the reading thread). */
  @FunctionalInterface
  interface PinListener {
    /** Called once, when a lookup of the pin's key ended it (from PENDING, STARTING or PINNED). */
    void read(Pin pin);
  }

  /**
   * Returns a cache holding at most {@code maxBytes} bytes of values, evicting the oldest unpinned
   * insertions first; 0 caches nothing. A value weighs its length (an empty array weighs 1); a
   * value larger than the bound is not kept.
   */
  static <K> ClaimCache<K> bytesBounded(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("cacheMaxBytes must be >= 0, was " + maxBytes);
    }
    return maxBytes == 0 ? new NoCache<>() : new FifoClaimCache<>(maxBytes);
  }
}
