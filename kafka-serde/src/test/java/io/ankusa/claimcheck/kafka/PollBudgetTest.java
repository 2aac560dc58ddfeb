package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.internal.PollBoundaries;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.junit.jupiter.api.Test;

class PollBudgetTest {

  private static final long MS = 1_000_000L;
  private final DrivenTicker ticker = new DrivenTicker();
  private final AtomicLong epoch = new AtomicLong();

  /** max.poll.interval.ms = 10 s, ratio 0.5: a 5 s budget; read deadline 30 s. */
  private PollBudget budget() {
    return new PollBudget(ticker, 10_000, 0.5, 30_000 * MS, epoch::get, 500);
  }

  private void spend(long ms) {
    ticker.advance(Duration.ofMillis(ms));
  }

  @Test
  void budgetIsTheRatioOfThePollInterval() {
    assertThat(budget().budgetNanos()).isEqualTo(5_000 * MS);
  }

  @Test
  void backToBackRecordsShareOneBudget() {
    PollBudget b = budget();
    long start = ticker.read();
    assertThat(b.begin()).isEqualTo(start + 5_000 * MS);
    spend(2_000);
    b.end(false);
    assertThat(b.begin()).isEqualTo(start + 5_000 * MS);
    spend(3_500);
    b.end(false);
    long deadline = b.begin();
    assertThat(deadline)
        .isEqualTo(start + 5_000 * MS)
        .isLessThan(ticker.read()); // spent: fail at once
  }

  @Test
  void readDeadlineCapsEachRedeem() {
    PollBudget b = new PollBudget(ticker, 300_000, 0.5, 1_000 * MS, epoch::get, 500);
    long start = ticker.read();
    assertThat(b.begin()).isEqualTo(start + 1_000 * MS);
    spend(800);
    b.end(false);
    assertThat(b.begin()).isEqualTo(ticker.read() + 1_000 * MS);
  }

  @Test
  void aPauseLongerThanTheIdleGapStartsANewWindow() {
    PollBudget b = budget();
    long start = ticker.read();
    b.begin();
    spend(4_000);
    b.end(false);
    spend(50); // exactly the gap: same poll
    assertThat(b.begin()).isEqualTo(start + 5_000 * MS);
    b.end(false);
    spend(51);
    assertThat(b.begin()).isEqualTo(ticker.read() + 5_000 * MS);
  }

  @Test
  void aPollBoundaryStartsANewWindowAndThenPausesDoNot() {
    PollBudget b = budget();
    b.begin();
    spend(1_000);
    b.end(false);
    epoch.incrementAndGet(); // the interceptor saw the poll end
    long second = ticker.read();
    assertThat(b.begin()).isEqualTo(second + 5_000 * MS);
    spend(1_000);
    b.end(false);
    spend(2_000); // a long pause inside one poll: with an interceptor, still the same window
    assertThat(b.begin()).isEqualTo(second + 5_000 * MS);
    b.end(false);
    epoch.incrementAndGet();
    assertThat(b.begin()).isEqualTo(ticker.read() + 5_000 * MS);
  }

  /**
   * Regression (ChaosIT seed 7957836540815764965): on kafka-clients 4.x one poll went on
   * deserializing another partition's record after an UNAVAILABLE, got a fresh 5 s budget, and the
   * member was dropped from its group for exceeding max.poll.interval.ms.
   */
  @Test
  void aRetriableFailureDoesNotRenewTheBudgetWithinThePoll() {
    PollBudget b = budget();
    long start = ticker.read();
    b.begin();
    spend(5_000);
    b.end(true); // UNAVAILABLE at the deadline
    spend(1); // the same poll deserializes the next partition's record at once
    assertThat(b.begin()).isEqualTo(start + 5_000 * MS).isLessThan(ticker.read());
  }

  @Test
  void aPauseAfterARetriableFailureStartsANewWindowEvenWithAnInterceptor() {
    PollBudget b = budget();
    epoch.incrementAndGet(); // an interceptor runs; a poll that throws never signals its end
    b.begin();
    spend(5_000);
    b.end(true);
    spend(51); // the application handles the exception and polls again
    assertThat(b.begin()).isEqualTo(ticker.read() + 5_000 * MS);
  }

  @Test
  void withAnInterceptorAPauseWithoutAFailureKeepsTheWindow() {
    PollBudget b = budget();
    epoch.incrementAndGet();
    long start = ticker.read();
    b.begin();
    spend(1_000);
    b.end(false);
    spend(500);
    assertThat(b.begin()).isEqualTo(start + 5_000 * MS);
  }

  @Test
  void aFinalFailureKeepsTheWindow() {
    PollBudget b = budget();
    long start = ticker.read();
    b.begin();
    spend(1_000);
    b.end(false);
    assertThat(b.begin()).isEqualTo(start + 5_000 * MS);
  }

  @Test
  void eachThreadHasItsOwnWindow() throws Exception {
    PollBudget b = budget();
    long start = ticker.read();
    b.begin();
    spend(3_000);
    long other = CompletableFuture.supplyAsync(b::begin).get();
    assertThat(other).isEqualTo(ticker.read() + 5_000 * MS);
    b.end(false);
    assertThat(b.begin()).isEqualTo(start + 5_000 * MS);
  }

  @Test
  void theInterceptorSignalsTheCallingThreadOnly() throws Exception {
    ClaimCheckConsumerInterceptor<String, String> interceptor =
        new ClaimCheckConsumerInterceptor<>();
    long mine = PollBoundaries.epoch();
    ConsumerRecords<String, String> records = ConsumerRecords.empty();
    assertThat(interceptor.onConsume(records)).isSameAs(records);
    assertThat(PollBoundaries.epoch()).isEqualTo(mine + 1);
    CompletableFuture.runAsync(() -> interceptor.onConsume(records)).get();
    assertThat(PollBoundaries.epoch()).isEqualTo(mine + 1);
  }

  @Test
  void steadyPollsWithinTheIdleGapDoNotMergeIntoOneSpentWindow() {
    // Regression guard: a consumer whose polls follow each other within the idle gap must not
    // fail a healthy redeem once max.poll.records redeems' worth of windows add up to the budget.
    PollBudget b = new PollBudget(ticker, 10_000, 0.5, 30_000 * MS, epoch::get, 3);
    long start = ticker.read();
    for (int i = 0; i < 3; i++) {
      assertThat(b.begin()).isEqualTo(start + 5_000 * MS);
      spend(2_000); // three 2 s redeems: 6 s, past the 5 s budget
      b.end(false);
    }
    long fourth = b.begin(); // a fourth redeem cannot belong to the poll that returned three
    assertThat(fourth).isEqualTo(ticker.read() + 5_000 * MS);
  }
}
