package io.ankusa.claimcheck.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The count a serde keeps: exact whichever threads count, one owner or many. */
class TallyTest {

  @Test
  void oneThreadCountsExactly() {
    Tally t = new Tally();
    assertThat(t.sum()).isZero();
    for (int i = 0; i < 1_000; i++) {
      t.increment();
    }
    assertThat(t.sum()).isEqualTo(1_000);
  }

  @Test
  void manyThreadsAtOnceLoseNoCount() throws InterruptedException {
    Tally t = new Tally();
    int threads = 4;
    int each = 200_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> all = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread th =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int n = 0; n < each; n++) {
                  t.increment();
                }
              });
      th.start();
      all.add(th);
    }
    start.countDown(); // all race for ownership: one wins, the rest count in the adder
    for (Thread th : all) {
      th.join();
    }
    assertThat(t.sum()).isEqualTo((long) threads * each);
  }

  @Test
  void theOwnerKeepsCountingAfterOthersJoin() throws InterruptedException {
    Tally t = new Tally();
    t.increment(); // this thread owns the tally
    Thread other =
        new Thread(
            () -> {
              for (int n = 0; n < 500; n++) {
                t.increment();
              }
            });
    other.start();
    other.join();
    t.increment();
    assertThat(t.sum()).isEqualTo(502);
  }
}
