package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Gives each redeem an absolute deadline so the redeems of one poll together never take more than a
 * share of {@code max.poll.interval.ms}; thread-safe (every thread has its own window).
 *
 * <p>A <em>window</em> is the run of redeems that share one budget. Redeem {@code i}'s deadline is
 * {@code min(windowStart + budget, now + readDeadline)}, so once a window's budget is spent every
 * further redeem in it fails at once instead of holding the consumer past its poll interval. A new
 * window starts at a redeem when:
 *
 * <ul>
 *   <li>the thread's poll boundary count moved ({@link ClaimCheckConsumerInterceptor} saw the end
 *       of a poll): exact windows, one per poll;
 *   <li>the thread never signalled a boundary (no interceptor) and the deserializer was idle for
 *       more than {@link #IDLE_GAP_NANOS} between the end of one redeem and the start of this one:
 *       records of one poll are deserialized back to back, so a pause means a new poll;
 *   <li>the window already holds {@code max.poll.records} redeems: one poll deserializes at most
 *       that many records, so the poll that opened it is certainly over. Without this, a steady
 *       consumer whose polls follow each other within the idle gap would merge its polls into one
 *       window and, after {@code budget} of healthy reads, fail a redeem for no reason; with it,
 *       merged partial polls can only spend the budget when the store is slow;
 *   <li>the window saw a retriable failure ({@code UNAVAILABLE}, or the inner deserializer threw)
 *       and the deserializer was then idle for more than {@link #IDLE_GAP_NANOS}, even with an
 *       interceptor (a poll that throws never reaches {@code onConsume}, so no boundary comes): the
 *       application's retry is a new poll. A failure alone does not start a new window: on
 *       kafka-clients 4.x one {@code poll} may go on deserializing other partitions' records after
 *       one failed, and a fresh budget there would hold that poll past its interval (found by
 *       {@code ChaosIT}). What follows a failure within the gap spends what is left of the window.
 * </ul>
 *
 * <p>Invariants: a thread's window start only moves forward; a deadline is never later than {@code
 * now + readDeadline}; the clock is the injected ticker, read once per call.
 */
final class PollBudget {

  /** A pause between two redeems longer than this starts a new window when no interceptor runs. */
  static final long IDLE_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final Ticker ticker;
  private final long budgetNanos;
  private final long readDeadlineNanos;
  private final LongSupplier boundaries;
  private final int maxPollRecords;
  private final ThreadLocal<Window> windows = ThreadLocal.withInitial(Window::new);

  /** A thread's current window; touched only by its thread. */
  private static final class Window {
    boolean open;
    boolean failed;
    long start;
    long lastEnd;
    long epoch;
    int redeems;
  }

  /**
   * @param maxPollIntervalMs the consumer's {@code max.poll.interval.ms}
   * @param ratio the share of it one window may spend ({@code claimcheck.poll.budget.ratio})
   * @param readDeadlineNanos the cap on one redeem ({@code claimcheck.read.deadline.ms})
   * @param boundaries the calling thread's poll boundary count
   * @param maxPollRecords the consumer's {@code max.poll.records}
   */
  PollBudget(
      Ticker ticker,
      long maxPollIntervalMs,
      double ratio,
      long readDeadlineNanos,
      LongSupplier boundaries,
      int maxPollRecords) {
    this.ticker = ticker;
    this.budgetNanos = (long) (TimeUnit.MILLISECONDS.toNanos(maxPollIntervalMs) * ratio);
    this.readDeadlineNanos = readDeadlineNanos;
    this.boundaries = boundaries;
    this.maxPollRecords = maxPollRecords;
  }

  /** The budget one window shares, in nanoseconds. */
  long budgetNanos() {
    return budgetNanos;
  }

  /** Starts a redeem on the calling thread and returns its absolute deadline (on the ticker). */
  long begin() {
    long now = ticker.read();
    long epoch = boundaries.getAsLong();
    Window w = windows.get();
    boolean fresh =
        !w.open
            || epoch != w.epoch
            || w.redeems >= maxPollRecords
            || ((epoch == 0 || w.failed) && now - w.lastEnd > IDLE_GAP_NANOS);
    if (fresh) {
      w.open = true;
      w.failed = false;
      w.start = now;
      w.epoch = epoch;
      w.redeems = 0;
    }
    w.redeems++;
    return Math.min(w.start + budgetNanos, now + readDeadlineNanos);
  }

  /**
   * Ends the calling thread's record; {@code failedRetriably} lets a pause end its window even with
   * an interceptor (see the class doc).
   */
  void end(boolean failedRetriably) {
    Window w = windows.get();
    w.lastEnd = ticker.read();
    if (failedRetriably) {
      w.failed = true;
    }
  }
}
