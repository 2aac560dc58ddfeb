package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import java.time.Duration;
import java.util.PriorityQueue;

/**
 * A scheduler whose timers fire only when the test advances its {@link FakeTicker}; thread-safe.
 * Tasks due at or before the new time run in due order on the advancing thread, with the ticker set
 * to each task's due time while it runs.
 */
final class ManualScheduler implements ReaderScheduler {

  private record Task(long due, long seq, Runnable run) {}

  private final FakeTicker ticker;
  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private long seq;

  ManualScheduler(FakeTicker ticker) {
    this.ticker = ticker;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, long delayNanos) {
    Task t = new Task(ticker.read() + Math.max(0, delayNanos), seq++, task);
    tasks.add(t);
    return () -> {
      synchronized (this) {
        tasks.remove(t);
      }
    };
  }

  /** Moves time forward by {@code d}, running every task that falls due on the way. */
  void advance(Duration d) {
    long target = ticker.read() + d.toNanos();
    for (; ; ) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.due > target) {
          break;
        }
        tasks.poll();
      }
      if (next.due > ticker.read()) {
        ticker.set(next.due);
      }
      next.run.run();
    }
    ticker.set(Math.max(target, ticker.read()));
  }

  synchronized int pending() {
    return tasks.size();
  }
}
