package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The inline call timeouts' timer: tasks run at their time and not before, cancelled ones never,
 * and a lone caller's schedule-then-cancel does not wake its thread per call. It parks a real
 * thread, so these tests wait on latches with generous bounds rather than drive a clock.
 */
class LazyTimerTest {

  private final LazyTimer timer = new LazyTimer("lazy-timer-test", Ticker.system());

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  @Test
  void aTaskRunsOnceAtItsTimeAndNotBefore() throws Exception {
    CountDownLatch ran = new CountDownLatch(1);
    long start = System.nanoTime();
    long[] at = new long[1];
    timer.schedule(
        () -> {
          at[0] = System.nanoTime();
          ran.countDown();
        },
        150,
        TimeUnit.MILLISECONDS);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(at[0] - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
    assertThat(timer.pending()).isZero();
  }

  @Test
  void anEarlierTaskScheduledAfterALaterOneWakesTheThreadForItsOwnTime() throws Exception {
    CountDownLatch ran = new CountDownLatch(1);
    ScheduledFuture<?> late = timer.schedule(() -> {}, 1, TimeUnit.HOURS);
    Thread.sleep(50); // the thread now sleeps until the hour is up
    timer.schedule(ran::countDown, 50, TimeUnit.MILLISECONDS);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(late.isDone()).isFalse();
    assertThat(late.cancel(false)).isTrue();
    assertThat(late.isCancelled()).isTrue();
    assertThat(timer.pending()).isZero();
  }

  @Test
  void aCancelledTaskNeverRunsAndLeavesNothingQueued() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    List<ScheduledFuture<?>> futures = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      futures.add(
          timer.schedule(
              () -> {
                runs.incrementAndGet();
              },
              100,
              TimeUnit.MILLISECONDS));
    }
    futures.forEach(f -> assertThat(f.cancel(false)).isTrue());
    assertThat(timer.pending()).isZero();
    CountDownLatch later = new CountDownLatch(1);
    timer.schedule(later::countDown, 300, TimeUnit.MILLISECONDS);
    assertThat(later.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(runs).hasValue(0);
    assertThat(futures.get(0).cancel(false)).isFalse(); // cancelled already
  }

  /** Regression: a scheduled executor woke its thread at every schedule of a lone caller. */
  @Test
  void aLoneCallersScheduleThenCancelDoesNotWakeTheThreadPerCall() throws Exception {
    ScheduledFuture<?> first = timer.schedule(() -> {}, 30, TimeUnit.SECONDS);
    first.cancel(false);
    Thread.sleep(50); // the thread sleeps until the first task's time or for IDLE_NANOS
    long before = timer.wakes();
    for (int i = 0; i < 10_000; i++) {
      timer.schedule(() -> {}, 30, TimeUnit.SECONDS).cancel(false);
    }
    assertThat(timer.wakes() - before).isLessThanOrEqualTo(2);
    assertThat(timer.pending()).isZero();
  }

  @Test
  void aShutDownTimerRefusesTasksAndItsThreadEnds() throws Exception {
    timer.schedule(() -> {}, 1, TimeUnit.HOURS);
    assertThat(timer.shutdownNow()).hasSize(1);
    assertThat(timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(timer.isTerminated()).isTrue();
    assertThatThrownBy(() -> timer.schedule(() -> {}, 1, TimeUnit.SECONDS))
        .isInstanceOf(RejectedExecutionException.class);
  }
}
