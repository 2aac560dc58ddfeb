package io.ankusa.claimcheck.internal.schedule;

/**
 * Runs the reader's timers — caller deadlines and the one-second tick; implementations are
 * thread-safe.
 *
 * <p>Like Caffeine's {@code Scheduler}, it is injected so that tests fire timers by hand together
 * with a driven {@link io.ankusa.claimcheck.time.Ticker}. A task runs on the scheduler's thread and
 * must be short: the reader's tasks complete callers' futures, so a caller that chains blocking
 * work onto a fetch should chain it with an {@code *Async} method.
 */
public interface ReaderScheduler {

  /** A scheduled task that has not run yet can be cancelled; cancelling later does nothing. */
  @FunctionalInterface
  interface Cancellable {
    /** Stops the task from running if it has not started; idempotent. */
    void cancel();
  }

  /** Runs {@code task} once, no earlier than {@code delayNanos} from now. */
  Cancellable schedule(Runnable task, long delayNanos);

  /**
   * Returns the JVM-wide scheduler: one daemon thread ({@code claimcheck-reader-timer}) shared by
   * every reader, started on first use and never shut down; cancelled tasks leave its queue at
   * once.
   */
  static ReaderScheduler system() {
    return SystemScheduler.INSTANCE;
  }
}
