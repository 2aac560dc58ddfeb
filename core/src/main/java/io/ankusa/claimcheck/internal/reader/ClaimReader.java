package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.cache.ClaimCache;
import io.ankusa.claimcheck.internal.schedule.Backoff;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The one path every store read of a redeem takes, so a process stays fast while a store throttles
 * or hangs; implementations are thread-safe and {@link #fetch} never blocks.
 *
 * <p>It coalesces concurrent fetches of one {@link FetchKey} into one store request; runs at most
 * an adaptive (AIMD) limit of store requests per store at once, queueing up to {@code queueMax}
 * more per store and shedding past that; answers each caller by its own deadline; caches every
 * successful answer in a byte-bounded cache; and gates how many requests the process serves.
 *
 * <p>A throttled or unavailable answer ({@link io.ankusa.claimcheck.store.StoreException} of kind
 * {@code THROTTLED} or {@code UNAVAILABLE}) is retried inside the callers' deadlines with
 * exponential backoff and full jitter, honouring the store's Retry-After when it fits (see {@link
 * Backoff}); every retry is a new store request under the store's limit, shared by every caller of
 * the fetch. Retries go on while a caller still waits and the next attempt can start before the
 * latest waiting caller's deadline.
 *
 * <p>Outcomes stay distinct: a fetch completes with the bytes; or exceptionally with the fetch
 * function's final {@link io.ankusa.claimcheck.store.StoreException} ({@code NOT_FOUND}, {@code
 * FORBIDDEN}: the store's own answer, shared by every caller of that fetch); or with whatever else
 * the function failed with (not a store failure — its own verdict, an {@code Error}), unchanged,
 * uncached, never retried; or with a {@link ReadException} when the reader gave no answer: {@link
 * ReadException.Reason#OVERLOADED} (shed), {@link ReadException.Reason#DEADLINE} (naming the last
 * store error when attempts failed) or {@link ReadException.Reason#CLOSED}.
 */
public interface ClaimReader extends AutoCloseable {

  /**
   * Runs {@code fn} — one read of {@code key}, charged to store {@code store} — under that store's
   * limit, or joins a fetch of {@code key} already under way (whose function and store then stand
   * for both); a cached answer completes the returned future at once.
   *
   * <p>{@code deadlineNanos} is absolute on the reader's ticker: once it passes, the returned
   * future fails with {@link ReadException.Reason#DEADLINE} whatever the fetch is doing; a queued
   * fetch whose callers' deadlines all passed is dropped without calling {@code fn}; a store
   * request that outlives its callers still runs to the end and fills the cache.
   *
   * <p>{@code fn} must not block; it is called once per attempt (again for each retry), on the
   * calling thread, on the thread that completed an earlier store request, or on the scheduler's
   * thread when a backoff ends. The returned bytes are shared with the cache and every other caller
   * of the flight, never copied: see {@link ClaimCache} for who may write into them (only the
   * caller whose own {@code fn} produced them, which may hand them on as its caller's own) and why
   * every other taker copies them and verifies the copy, {@link #evict}ing an entry whose copy
   * failed.
   *
   * @throws IllegalArgumentException if {@code store} is not a store index of this reader
   */
  CompletableFuture<byte[]> fetch(
      FetchKey key, int store, Supplier<CompletableFuture<byte[]>> fn, long deadlineNanos);

  /**
   * Drops the cache's entry of {@code key} if it holds exactly {@code bytes} (see {@link
   * ClaimCache#remove}): a copy of them failed its check, so they were changed after they were
   * cached; the next fetch of {@code key} asks the store. Never blocks.
   */
  default void evict(FetchKey key, byte[] bytes) {}

  /**
   * Whether the cache holds bytes for {@code key} now; never blocks, fetches nothing (a reader
   * without a cache answers false).
   */
  default boolean cached(FetchKey key) {
    return false;
  }

  /**
   * Counts the calling thread as one request in flight unless {@code maxConcurrentReads} already
   * are, and returns whether it did; a caller refused answers "overloaded" and does not call {@link
   * #release()}. With {@code maxConcurrentReads = 0} every request is admitted and none counted,
   * and so does a closed reader (there is no gate left to count at). A thread may hold several
   * permits; a dead thread's permits are reclaimed by the next tick.
   */
  boolean admit();

  /** Gives back one permit {@link #admit()} counted for the calling thread; else does nothing. */
  void release();

  /**
   * Like {@link #admit()}, but the permit belongs to no thread: {@link #releaseUnowned()} from any
   * thread gives it back, and it is never reclaimed (its holder must release it). A reader without
   * a gate admits everything.
   */
  default boolean admitUnowned() {
    return true;
  }

  /** Gives back one permit {@link #admitUnowned()} counted. */
  default void releaseUnowned() {}

  /** Returns how many permits the request gate counts now. */
  int admitted();

  /**
   * Registers the intent to prefetch {@code key} through {@link #fetch}: see {@link
   * ClaimCache#register}. Returns null when there is nothing to prefetch into (no cache, the bytes
   * are cached already, another prefetch holds the key, or the reader is closed).
   */
  default ClaimCache.Pin pin(FetchKey key, ClaimCache.PinListener listener) {
    return null;
  }

  /**
   * Returns the bytes the cache reserves for prefetches now (see {@link ClaimCache#pinnedBytes}).
   */
  default long pinnedBytes() {
    return 0;
  }

  /** Returns each store's limit, running store requests and queued fetches. */
  Map<Integer, StoreStats> stats();

  /**
   * Stops the reader: waiting callers fail with {@link ReadException.Reason#CLOSED}, later fetches
   * too, running store requests finish unobserved; idempotent.
   */
  @Override
  void close();
}
