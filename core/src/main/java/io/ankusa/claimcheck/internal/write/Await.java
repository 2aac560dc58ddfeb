package io.ankusa.claimcheck.internal.write;

import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a store operation of a check-in, bounded by the write deadline plus a grace; stateless
 * and thread-safe. Every failure is a {@link StoreException} but an {@link Error}, rethrown as
 * itself; an interrupt restores the thread's flag.
 */
final class Await {

  private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private Await() {}

  static <T> T await(CompletableFuture<T> f, long deadline, Ticker ticker) {
    long wait = Math.max(0, deadline - ticker.read()) + GRACE_NANOS;
    try {
      return f.get(wait, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.cancel(false);
      throw new StoreException(StoreException.Kind.UNAVAILABLE, "interrupted while writing");
    } catch (ExecutionException e) {
      Throwable cause = StoreException.unwrap(e);
      if (cause instanceof Error err) {
        throw err; // not a failure of the store: never retried as UNAVAILABLE
      }
      throw StoreException.of(cause);
    } catch (TimeoutException e) {
      f.cancel(false);
      throw new StoreException(
          StoreException.Kind.UNAVAILABLE, "the write did not finish by its deadline", null, e);
    }
  }
}
