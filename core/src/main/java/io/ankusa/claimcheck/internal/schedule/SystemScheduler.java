package io.ankusa.claimcheck.internal.schedule;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM-wide {@link ReaderScheduler} on one daemon thread; thread-safe.
 *
 * <p>Invariants: one executor thread, created lazily with the enum constant and never shut down
 * (readers come and go; the thread is a daemon, so it never keeps a JVM alive); cancelled tasks are
 * removed from the queue at once, so a deadline timer of an answered caller holds no memory; a task
 * that throws is logged and does not stop later tasks.
 */
enum SystemScheduler implements ReaderScheduler {
  INSTANCE;

  private static final Logger LOG = LoggerFactory.getLogger(SystemScheduler.class);

  private final ScheduledThreadPoolExecutor executor;

  SystemScheduler() {
    executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "claimcheck-reader-timer");
              t.setDaemon(true);
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> f =
        executor.schedule(
            () -> {
              try {
                task.run();
              } catch (RuntimeException | Error e) {
                LOG.error("claim reader timer task failed", e);
              }
            },
            Math.max(0, delayNanos),
            TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }
}
