package io.ankusa.claimcheck;

import java.util.concurrent.CompletableFuture;

/**
 * One claim fetched ahead of its redeem into the shared reader's cache and held there, never
 * evicted, until the first redeem of it or until released; thread-safe.
 *
 * <p>{@link ClaimCheck#prefetch} returns it pending: nothing fetched, nothing reserved. Its
 * prefetcher then {@link #reserve reserves} the claim's stored bytes in the cache and, when that
 * {@link Start#STARTED started}, calls {@link #fetch} once. The prefetch ends at the first redeem
 * of the claim by anyone (the {@code onRead} given to {@link ClaimCheck#prefetch} runs, on the
 * redeeming thread) or at {@link #release}. A redeem that comes before the fetch ends it too, and
 * the fetch is then never made, so no claim is fetched twice. The reserved bytes count in the
 * cache's bound, so pins never push it past its size.
 */
public interface Prefetch {

  /** What {@link #reserve} did. */
  enum Start {
    /** Reserved: call {@link #fetch} now. */
    STARTED,
    /**
     * Ended and never to be fetched: redeemed already, released, the claim is cached, or it weighs
     * more than the whole cache.
     */
    GONE,
    /** Still pending: the prefetches hold all the cache may reserve; try again later. */
    NO_ROOM
  }

  /**
   * Reserves the claim's stored bytes in the cache; never blocks. Until {@link #fetch} returns, a
   * redeem of the claim by another thread still ends the prefetch (the fetch then caches the bytes
   * as an ordinary, evictable entry).
   */
  Start reserve();

  /**
   * After {@link Start#STARTED}: fetches the claim into the cache by {@code deadlineNanos} (on
   * {@link ClaimCheck#ticker()}), verified against its ref before it is cached, without a copy for
   * the caller; never blocks. The future completes when the fetch ended, exceptionally when it
   * failed (nothing is cached then; the redeem that reads the claim reports the failure itself).
   */
  CompletableFuture<?> fetch(long deadlineNanos);

  /**
   * Gives the prefetch up: its reservation is returned and its bytes, if they arrived, become an
   * ordinary (evictable) cache entry; does nothing to an ended prefetch. Idempotent.
   */
  void release();
}
