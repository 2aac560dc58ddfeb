package io.ankusa.claimcheck.internal.crypto;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process-wide helper threads that decrypt arriving segments beside the redeeming thread;
 * thread-safe, created on first use.
 *
 * <p>One daemon thread per core beyond the first, idle threads ending after a while: a redeem hands
 * its segments over in batches ({@link SegmentOpener}) and opens whatever is left itself, so a busy
 * or empty pool only means the redeeming thread decrypts, as it would alone. On a single core there
 * is nothing to overlap with and no pool ({@link #shared()} is null).
 */
final class OpeningPool {

  private static final Executor SHARED = create(Runtime.getRuntime().availableProcessors());

  private OpeningPool() {}

  /** The shared helper pool, or null on a single core. */
  static Executor shared() {
    return SHARED;
  }

  private static Executor create(int cores) {
    if (cores < 2) {
      return null;
    }
    AtomicInteger n = new AtomicInteger();
    int threads = cores - 1;
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), // at most one task per redeem in flight
            r -> {
              Thread t = new Thread(r, "claimcheck-open-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
