package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * One caller of {@link ClaimReader#fetch} waiting for an answer; thread-safe.
 *
 * <p>Invariants: the caller is settled exactly once — by the fetch's answer, its deadline, a shed,
 * or close, whichever comes first (a compare-and-set decides) — and only the settling call
 * completes {@link #future}, so whoever settled it knows how the caller was answered and counts it;
 * once settled, its deadline timer is cancelled (the timer is published before {@code settled} is
 * read and vice versa, so one of {@link #arm} and the settling call always cancels it).
 */
final class Caller {

  private static final VarHandle SETTLED;

  static {
    try {
      SETTLED = MethodHandles.lookup().findVarHandle(Caller.class, "settled", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final CompletableFuture<byte[]> future = new CompletableFuture<>();
  final int store;
  final long deadlineNanos;
  private volatile boolean settled;
  private volatile ReaderScheduler.Cancellable timer;

  Caller(int store, long deadlineNanos) {
    this.store = store;
    this.deadlineNanos = deadlineNanos;
  }

  /** Publishes this caller's deadline timer, cancelling it at once if already settled. */
  void arm(ReaderScheduler.Cancellable t) {
    timer = t;
    if (settled) {
      t.cancel();
    }
  }

  /** Answers with {@code bytes}; returns whether this call settled the caller. */
  boolean succeed(byte[] bytes) {
    if (!settle()) {
      return false;
    }
    future.complete(bytes);
    return true;
  }

  /** Answers with {@code failure}; returns whether this call settled the caller. */
  boolean fail(Throwable failure) {
    if (!settle()) {
      return false;
    }
    future.completeExceptionally(failure);
    return true;
  }

  boolean isSettled() {
    return settled;
  }

  private boolean settle() {
    if (!SETTLED.compareAndSet(this, false, true)) {
      return false;
    }
    ReaderScheduler.Cancellable t = timer;
    if (t != null) {
      t.cancel();
    }
    return true;
  }
}
