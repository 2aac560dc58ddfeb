package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Which store requests the reader lets run on the calling thread ({@link InlineCalls}): only the
 * attempt of the flight that thread leads, under the store's limit like any; never another caller's
 * queued flight, a retry, or the chained work of a follower the answer completes.
 */
class ReaderInlineCallsTest extends ReaderTestSupport {

  /** A fetch function that records what it was allowed, and answers at once. */
  private static Supplier<CompletableFuture<byte[]>> recording(List<Long> allowed, byte[] b) {
    return () -> {
      allowed.add(InlineCalls.remainingNanos());
      return CompletableFuture.completedFuture(b);
    };
  }

  @Test
  void theLeadersOwnAttemptRunsInlineUnderTheLimitAndAnswersBeforeFetchReturns() {
    reader(b -> b.maxInflight(1));
    List<Long> allowed = new ArrayList<>();
    List<Integer> inflightSeen = new ArrayList<>();
    CompletableFuture<byte[]> f;
    try (InlineCalls.Scope s = InlineCalls.allowUntil(ticker, in(Duration.ofSeconds(5)))) {
      f =
          reader.fetch(
              key(1),
              0,
              () -> {
                inflightSeen.add(reader.stats().get(0).inflight());
                return recording(allowed, bytes("one")).get();
              },
              in(Duration.ofSeconds(5)));
    }
    assertValue(f, "one"); // answered on this thread: no hand-off
    assertThat(allowed).singleElement().satisfies(n -> assertThat(n).isPositive());
    assertThat(inflightSeen).containsExactly(1); // it holds a slot of the store's limit
    assertThat(reader.stats().get(0).inflight()).isZero();
  }

  @Test
  void aQueuedFlightStartedByTheLeadersAnswerDoesNotRunInlineOnTheLeadersThread() {
    reader(b -> b.maxInflight(1));
    CompletableFuture<byte[]> first = fetch(key(1)); // holds the only slot, answered by hand
    List<Long> queuedAllowed = new ArrayList<>();
    CompletableFuture<byte[]> queued =
        reader.fetch(key(2), 0, recording(queuedAllowed, bytes("two")), in(THIRTY_S));
    assertThat(queuedAllowed).isEmpty(); // waiting for the slot

    try (InlineCalls.Scope s = InlineCalls.allowUntil(ticker, in(Duration.ofSeconds(5)))) {
      store.answer(0, bytes("one")); // the slot frees on this (allowing) thread
    }
    assertValue(first, "one");
    assertValue(queued, "two");
    assertThat(queuedAllowed).containsExactly(0L);
  }

  @Test
  void whatAFollowerChainedToItsAnswerDoesNotRunInlineOnTheLeadersThread() {
    reader(b -> {});
    CompletableFuture<byte[]> gate = new CompletableFuture<>();
    List<Long> leaderAllowed = new ArrayList<>();
    Supplier<CompletableFuture<byte[]>> slow =
        () -> {
          leaderAllowed.add(InlineCalls.remainingNanos());
          return gate;
        };
    CompletableFuture<byte[]> leader = reader.fetch(key(3), 0, slow, in(THIRTY_S));
    CompletableFuture<byte[]> follower = reader.fetch(key(3), 0, never(), in(THIRTY_S));
    List<Long> followerChainAllowed = new ArrayList<>();
    follower.thenRun(() -> followerChainAllowed.add(InlineCalls.remainingNanos()));

    try (InlineCalls.Scope s = InlineCalls.allowUntil(ticker, in(Duration.ofSeconds(5)))) {
      gate.complete(bytes("three"));
    }
    assertValue(leader, "three");
    assertValue(follower, "three");
    assertThat(followerChainAllowed).containsExactly(0L);
  }

  @Test
  void aRetryAfterBackoffDoesNotRunInlineOnTheThreadThatFiresTheTimer() {
    reader(b -> {});
    List<Long> allowed = new ArrayList<>();
    int[] calls = {0};
    Supplier<CompletableFuture<byte[]>> throttledOnce =
        () -> {
          allowed.add(InlineCalls.remainingNanos());
          return calls[0]++ == 0
              ? CompletableFuture.failedFuture(
                  new StoreException(StoreException.Kind.THROTTLED, "slow down"))
              : CompletableFuture.completedFuture(bytes("four"));
        };
    CompletableFuture<byte[]> f;
    try (InlineCalls.Scope s = InlineCalls.allowUntil(ticker, in(Duration.ofSeconds(5)))) {
      f = reader.fetch(key(4), 0, throttledOnce, in(Duration.ofSeconds(5)));
      assertThat(f).isNotDone(); // backing off
      scheduler.advance(Duration.ofSeconds(3)); // the retry fires on this (allowing) thread
    }
    assertValue(f, "four");
    assertThat(allowed).hasSize(2);
    assertThat(allowed.get(0)).isPositive();
    assertThat(allowed.get(1)).isZero();
  }

  @Test
  void aFetchOnAThreadThatAllowsNothingRunsNothingInline() {
    reader(b -> {});
    List<Long> allowed = new ArrayList<>();
    assertValue(reader.fetch(key(5), 0, recording(allowed, bytes("five")), in(THIRTY_S)), "five");
    assertThat(allowed).containsExactly(0L);
  }
}
