package io.ankusa.claimcheck.internal.cache;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link ClaimCache.Pin} of a {@link FifoClaimCache}; thread-safe.
 *
 * <p>Invariants: {@code state} only moves forward (PENDING → STARTING → PINNED → READ/RELEASED, or
 * straight from PENDING or STARTING to READ/RELEASED), by compare-and-set, so exactly one thread
 * ends a pin; whoever ends a STARTING or PINNED pin returns its {@code weight} to the cache's
 * reservation, once; the listener hears a read exactly once and never from the thread starting the
 * pin while it is STARTING; after its end a pin leaves no placeholder behind and its bytes, if any,
 * are queued for eviction exactly once ({@code enqueued}).
 */
final class CachePin<K> implements ClaimCache.Pin {

  private final FifoClaimCache<K> cache;
  private final K key;
  private final ClaimCache.PinListener listener;
  private final AtomicReference<State> state = new AtomicReference<>(State.PENDING);
  private final AtomicBoolean enqueued = new AtomicBoolean();

  /** Written before the CAS to STARTING, read only after seeing STARTING or PINNED. */
  private volatile long weight;

  private volatile Thread starter;

  CachePin(FifoClaimCache<K> cache, K key, ClaimCache.PinListener listener) {
    this.cache = cache;
    this.key = key;
    this.listener = listener;
  }

  boolean isLive() {
    State s = state.get();
    return s != State.READ && s != State.RELEASED;
  }

  /** Whether the pin keeps its bytes from eviction (a fetch started and no read came yet). */
  boolean holds() {
    State s = state.get();
    return s == State.STARTING || s == State.PINNED;
  }

  /** A lookup of the key: ends the pin as READ unless it is the prefetch's own. */
  void lookedUp() {
    if (state.get() == State.STARTING && starter == Thread.currentThread()) {
      return;
    }
    if (end(State.READ)) {
      listener.read(this);
    }
  }

  @Override
  public Start start(long w) {
    if (state.get() != State.PENDING) {
      return Start.GONE;
    }
    FifoClaimCache.Entry<K> e = cache.map.get(key);
    if (e != null && e.bytes != null) {
      end(State.RELEASED); // someone else's fetch put it meanwhile: nothing left to prefetch
      return Start.GONE;
    }
    long weight = Math.max(1, w);
    if (weight > cache.maxBytes) {
      end(State.RELEASED); // the cache could never hold it: its reader fetches it itself
      return Start.GONE;
    }
    if (!cache.reserve(weight)) {
      return Start.NO_ROOM;
    }
    this.weight = weight;
    this.starter = Thread.currentThread();
    if (!state.compareAndSet(State.PENDING, State.STARTING)) {
      cache.reserved.addAndGet(-weight);
      return Start.GONE;
    }
    return Start.STARTED;
  }

  @Override
  public void started() {
    state.compareAndSet(State.STARTING, State.PINNED);
    starter = null;
  }

  @Override
  public void release() {
    end(State.RELEASED);
  }

  @Override
  public State state() {
    return state.get();
  }

  /** Moves a live pin to {@code to}; returns whether this call ended it. */
  private boolean end(State to) {
    for (; ; ) {
      State s = state.get();
      if (s == State.READ || s == State.RELEASED) {
        return false;
      }
      if (state.compareAndSet(s, to)) {
        if (s == State.STARTING || s == State.PINNED) {
          cache.reserved.addAndGet(-weight);
        }
        settle();
        return true;
      }
    }
  }

  /** After the end: drop this pin's placeholder, or queue its bytes for eviction once. */
  private void settle() {
    for (; ; ) {
      FifoClaimCache.Entry<K> e = cache.map.get(key);
      if (e == null || e.pin != this) {
        return; // evicted, invalidated, or replaced by a put that queued the key itself
      }
      if (e.bytes != null) {
        enqueueOnce();
        cache.evict();
        return;
      }
      if (cache.map.remove(key, e)) {
        return;
      }
    }
  }

  void enqueueOnce() {
    if (enqueued.compareAndSet(false, true)) {
      cache.order.add(key);
    }
  }

  @Override
  public String toString() {
    return "Pin[" + key + ", " + state.get() + "]";
  }
}
