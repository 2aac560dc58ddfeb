package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.time.Ticker;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The timer of the S3 store's inline call timeouts: one daemon thread that is woken only when a
 * task is due before the time it already sleeps until; thread-safe.
 *
 * <p>Why not a {@code ScheduledThreadPoolExecutor}: a lone client arms one timeout per call and
 * cancels it a millisecond later, so its queue is empty at every schedule and each new task becomes
 * its head, which wakes the timer thread — a futex wake and a context switch per call, about 8 % of
 * the calling thread's CPU on a one-thread 256 KiB redeem loop. Here a task due later than the
 * thread's wake-up time (every call's, when the timeouts are alike) is only added; a cancelled task
 * is removed at once (none waits to be discarded); the thread wakes at the deadline it slept until,
 * or for an earlier task.
 *
 * <p>Invariants: {@link #tasks} holds the tasks neither run nor cancelled, by deadline; {@link
 * #wakeAt} is the time the thread sleeps until (the earliest task's deadline, or {@link
 * #IDLE_NANOS} from when it found none, so that a lone caller's next task, cancelled before the
 * thread saw it, does not leave it sleeping without a deadline for the one after), published before
 * the thread re-reads the earliest task, so a task added before that read is seen by it and one
 * added after sees the new {@code wakeAt} and wakes the thread if it is due earlier; a task's
 * deadline is read on {@link #ticker} and compared by difference (overflow-safe). Only {@link
 * #schedule(Runnable, long, TimeUnit)} is supported beyond {@code execute} and shutdown: what the
 * SDK's synchronous call timeouts use.
 */
final class LazyTimer extends AbstractExecutorService implements ScheduledExecutorService {

  private final Ticker ticker;
  private final ConcurrentSkipListSet<Task> tasks =
      new ConcurrentSkipListSet<>(
          (a, b) -> {
            int byDeadline = Long.signum(a.deadline - b.deadline);
            return byDeadline != 0 ? byDeadline : Long.compare(a.seq, b.seq);
          });
  private final AtomicLong seqs = new AtomicLong();
  private final AtomicLong wakes = new AtomicLong();
  private final Thread thread;
  private volatile long wakeAt;
  private volatile boolean shutdown;

  /** How long the thread sleeps with no task: a task due after that does not wake it. */
  static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Starts the timer's thread, named {@code name}, timed by {@code ticker}. */
  LazyTimer(String name, Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.wakeAt = ticker.read() + IDLE_NANOS;
    this.thread = new Thread(this::loop, name);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    if (shutdown) {
      throw new RejectedExecutionException("the timer is shut down");
    }
    Task t = new Task(command, ticker.read() + unit.toNanos(Math.max(0, delay)));
    tasks.add(t);
    if (t.deadline - wakeAt < 0) {
      LockSupport.unpark(thread);
    }
    return t;
  }

  /** How many tasks wait (neither run nor cancelled). */
  int pending() {
    return tasks.size();
  }

  /** How many times the thread woke since it started: for tests. */
  long wakes() {
    return wakes.get();
  }

  private void loop() {
    while (!shutdown) {
      Task first = earliest();
      if (first != null && first.deadline - ticker.read() <= 0) {
        if (tasks.remove(first)) {
          try {
            first.command.run();
          } catch (RuntimeException e) {
            // a timeout task's failure is its own; the timer goes on
          }
        }
        continue;
      }
      long until = first == null ? ticker.read() + IDLE_NANOS : first.deadline;
      wakeAt = until;
      if (earliest() != first) {
        continue; // a task came in before wakeAt was published: look again
      }
      LockSupport.parkNanos(this, until - ticker.read());
      wakes.incrementAndGet();
    }
  }

  private Task earliest() {
    try {
      return tasks.first();
    } catch (java.util.NoSuchElementException empty) {
      return null;
    }
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public void shutdown() {
    shutdown = true;
    tasks.clear();
    LockSupport.unpark(thread);
  }

  @Override
  public List<Runnable> shutdownNow() {
    List<Runnable> waiting = tasks.stream().map(t -> t.command).toList();
    shutdown();
    return waiting;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown && !thread.isAlive();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    thread.join(Math.max(1, unit.toMillis(timeout)));
    return !thread.isAlive();
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("only schedule(Runnable, ...) is supported");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("only schedule(Runnable, ...) is supported");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("only schedule(Runnable, ...) is supported");
  }

  /** One task: its command, deadline (on the ticker) and a sequence number that breaks ties. */
  private final class Task implements ScheduledFuture<Object> {
    final Runnable command;
    final long deadline;
    final long seq = seqs.incrementAndGet();
    private volatile boolean cancelled;

    Task(Runnable command, long deadline) {
      this.command = command;
      this.deadline = deadline;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean removed = tasks.remove(this);
      if (removed) {
        cancelled = true;
      }
      return removed;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return !tasks.contains(this);
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException("a timer task has no result");
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException("a timer task has no result");
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(deadline - ticker.read(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }
  }
}
