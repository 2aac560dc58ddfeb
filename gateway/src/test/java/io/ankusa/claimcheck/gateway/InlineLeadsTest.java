package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** At most {@code max} calls at once run with inline store calls allowed, and only small ones. */
class InlineLeadsTest {

  private final AtomicLong now = new AtomicLong(1_000);
  private final Ticker ticker = now::get;

  @Test
  void aFreeLeadAllowsInlineCallsUntilTheDeadline() {
    InlineLeads leads = new InlineLeads(2, ticker);
    long remaining = leads.run(1024, 1_500, InlineCalls::remainingNanos);
    assertThat(remaining).isEqualTo(500);
    assertThat(InlineCalls.remainingNanos()).as("the scope is closed after the call").isZero();
  }

  @Test
  void pastMaxLeadsAndPastOneChunkCallsRunWithoutTheAllowance() {
    InlineLeads leads = new InlineLeads(2, ticker);
    List<Long> seen = new ArrayList<>();
    // Nested calls hold their leads (as concurrent requests would): the third finds none free.
    leads.run(
        10,
        2_000,
        () ->
            leads.run(
                10,
                2_000,
                () -> {
                  seen.add(InlineCalls.remainingNanos());
                  // A third, from a thread holding no scope of its own, finds no lead free.
                  Thread t =
                      new Thread(() -> seen.add(leads.run(10, 2_000, InlineCalls::remainingNanos)));
                  t.start();
                  try {
                    t.join();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return null;
                }));
    assertThat(seen).containsExactly(1_000L, 0L);
    // The leads were given back: a new call gets one; a claim past one chunk never does.
    assertThat(leads.run(10, 2_000, InlineCalls::remainingNanos)).isEqualTo(1_000L);
    assertThat(leads.run(InlineLeads.MAX_BYTES + 1, 2_000, InlineCalls::remainingNanos)).isZero();
    assertThat(leads.run(-1, 2_000, InlineCalls::remainingNanos)).isZero();
  }

  @Test
  void zeroLeadsNeverAllowInlineCalls() {
    assertThat(new InlineLeads(0, ticker).run(10, 2_000, InlineCalls::remainingNanos)).isZero();
  }
}
