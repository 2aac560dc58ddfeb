package io.ankusa.claimcheck.internal.reader;

import static io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome.COALESCED;
import static io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome.SHED;
import static io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome.STORE;
import static io.ankusa.claimcheck.store.StoreException.Kind.FORBIDDEN;
import static io.ankusa.claimcheck.store.StoreException.Kind.NOT_FOUND;
import static io.ankusa.claimcheck.store.StoreException.Kind.THROTTLED;
import static io.ankusa.claimcheck.store.StoreException.Kind.UNAVAILABLE;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.StoreException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Retries inside the deadline (issue 8 §1) and answers that are not store failures (decision 4), on
 * a driven clock: with jitter 0.5 the n-th wait is half its ceiling min(2 s, 50 ms * 2^(n-1)).
 */
class ReaderRetryTest extends ReaderTestSupport {

  private static StoreException throttled(Duration retryAfter) {
    return new StoreException(THROTTLED, "SlowDown", retryAfter, null);
  }

  @Test
  void aThrottledReadIsRetriedAfterItsBackoffAndSucceeds() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1));
    store.fail(0, THROTTLED);
    scheduler.advance(Duration.ofMillis(24));
    assertThat(store.calls()).as("not before the jittered 25 ms").isEqualTo(1);
    scheduler.advance(Duration.ofMillis(1));
    assertThat(store.calls()).isEqualTo(2);
    assertThat(f).isNotDone();
    store.answer(1, bytes("v"));
    assertValue(f, "v");
    assertThat(telemetry.reads(0, STORE)).as("one caller, counted once").isEqualTo(1);
    assertThat(telemetry.totalReads()).isEqualTo(1);
    assertValue(reader.fetch(key(1), 0, never(), in(THIRTY_S)), "v");
    assertThat(reader.flightCount()).isZero();
  }

  @Test
  void transientFailuresBackOffExponentiallyUpToTheCap() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1));
    long[] expectedWaitsMs = {25, 50, 100, 200, 400, 800, 1000, 1000};
    for (int i = 0; i < expectedWaitsMs.length; i++) {
      store.fail(i, UNAVAILABLE);
      scheduler.advance(Duration.ofMillis(expectedWaitsMs[i] - 1));
      assertThat(store.calls()).as("attempt %d not yet", i + 2).isEqualTo(i + 1);
      scheduler.advance(Duration.ofMillis(1));
      assertThat(store.calls()).as("attempt %d at its time", i + 2).isEqualTo(i + 2);
    }
    store.answer(expectedWaitsMs.length, bytes("v"));
    assertValue(f, "v");
  }

  @Test
  void fullJitterSpreadsTheWaitOverTheWholeCeiling() {
    reader(b -> {});
    jitter = 0.0;
    CompletableFuture<byte[]> f = fetch(key(1));
    store.fail(0, THROTTLED);
    scheduler.advance(Duration.ZERO);
    assertThat(store.calls()).as("a draw of 0 retries at once").isEqualTo(2);
    jitter = 0.75;
    store.fail(1, THROTTLED); // second wait: ceiling 100 ms, draw 0.75 -> 75 ms
    scheduler.advance(Duration.ofMillis(74));
    assertThat(store.calls()).isEqualTo(2);
    scheduler.advance(Duration.ofMillis(1));
    assertThat(store.calls()).isEqualTo(3);
    store.answer(2, bytes("v"));
    assertValue(f, "v");
  }

  @Test
  void retryAfterIsHonouredWhenItFitsBeforeTheDeadline() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1), 0, in(Duration.ofSeconds(5)));
    store.fail(0, throttled(Duration.ofSeconds(1)));
    scheduler.advance(Duration.ofMillis(1024)); // Retry-After + up to one base of jitter: 1025
    assertThat(store.calls()).as("not before the store's Retry-After").isEqualTo(1);
    scheduler.advance(Duration.ofMillis(1));
    assertThat(store.calls()).isEqualTo(2);
    store.answer(1, bytes("v"));
    assertValue(f, "v");
  }

  @Test
  void retryAfterPastTheDeadlineIsNotWaitedForAndTheCallerFailsAtItsDeadline() {
    reader(b -> {});
    long deadline = in(Duration.ofSeconds(3));
    CompletableFuture<byte[]> f = fetch(key(1), 0, deadline);
    int answered = 0;
    while (ticker.read() < deadline) {
      if (store.calls() > answered) {
        store.fail(answered++, throttled(Duration.ofSeconds(60)));
      }
      scheduler.advance(Duration.ofMillis(1));
      if (ticker.read() < deadline) {
        assertThat(f).as("still retrying at %d ms", ticker.read() / 1_000_000).isNotDone();
      }
    }
    assertThat(store.calls()).as("retried on the plain backoff, not after 60 s").isGreaterThan(3);
    assertThat(ticker.read()).isEqualTo(deadline);
    assertRead(f, ReadException.Reason.DEADLINE);
    assertThat(failure(f))
        .hasMessageContaining("THROTTLED: SlowDown")
        .hasCauseInstanceOf(StoreException.class);
  }

  @Test
  void theLimitHalvesOnEveryThrottledRetry() {
    reader(b -> b.maxInflight(8));
    CompletableFuture<byte[]> f = fetch(key(1));
    // Attempts at 0, 25, 75, 175 and 375 ms (waits 25, 50, 100, 200), each throttled.
    long[] waitsMs = {25, 50, 100, 200};
    int[] limitAfter = {4, 4, 4, 2, 1};
    store.fail(0, THROTTLED);
    assertThat(limit(0)).isEqualTo(limitAfter[0]);
    for (int i = 0; i < waitsMs.length; i++) {
      scheduler.advance(Duration.ofMillis(waitsMs[i]));
      store.fail(i + 1, THROTTLED);
      assertThat(limit(0))
          .as("after attempt %d (at most one halving per 100 ms)", i + 2)
          .isEqualTo(limitAfter[i + 1]);
    }
    assertThat(telemetry.limits).containsExactly("0=4", "0=2", "0=1");
    scheduler.advance(Duration.ofMillis(400));
    store.answer(5, bytes("v"));
    assertValue(f, "v");
    assertThat(limit(0)).as("one success at limit 1 grows it by one").isEqualTo(2);
  }

  @Test
  void coalescedCallersShareOneRetryingFlight() {
    reader(b -> {});
    CompletableFuture<byte[]> a = fetch(key(1), 0, in(THIRTY_S));
    CompletableFuture<byte[]> b = fetch(key(1), 1, in(THIRTY_S));
    store.fail(0, THROTTLED);
    CompletableFuture<byte[]> c = fetch(key(1), 1, in(THIRTY_S)); // joins while backing off
    assertThat(store.calls()).as("joining a backing-off flight sends nothing").isEqualTo(1);
    scheduler.advance(Duration.ofMillis(25));
    assertThat(store.calls()).as("one request per attempt for all three").isEqualTo(2);
    store.fail(1, UNAVAILABLE);
    scheduler.advance(Duration.ofMillis(50));
    assertThat(store.calls()).isEqualTo(3);
    store.answer(2, bytes("v"));
    assertValue(a, "v");
    assertValue(b, "v");
    assertValue(c, "v");
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    assertThat(telemetry.reads(1, COALESCED)).isEqualTo(2);
    assertThat(telemetry.totalReads()).isEqualTo(3);
  }

  @Test
  void aLaterCallerKeepsTheFlightRetryingPastAnEarlierCallersDeadline() {
    reader(b -> {});
    CompletableFuture<byte[]> early = fetch(key(1), 0, in(Duration.ofMillis(100)));
    CompletableFuture<byte[]> late = fetch(key(1), 1, in(Duration.ofSeconds(5)));
    store.fail(0, THROTTLED);
    scheduler.advance(Duration.ofMillis(25));
    store.fail(1, THROTTLED);
    scheduler.advance(Duration.ofMillis(75));
    assertRead(early, ReadException.Reason.DEADLINE);
    assertThat(store.calls()).isEqualTo(3);
    store.fail(2, THROTTLED);
    scheduler.advance(Duration.ofMillis(100));
    store.answer(3, bytes("v"));
    assertValue(late, "v");
    assertThat(telemetry.reads(0, STORE)).as("the starter, by its flight").isEqualTo(1);
    assertThat(telemetry.reads(1, COALESCED)).isEqualTo(1);
    assertThat(telemetry.totalReads()).isEqualTo(2);
  }

  @Test
  void theDeadlinePassingWhileBackingOffFailsTheCallerAtItsDeadline() {
    reader(b -> {});
    jitter = 0.5;
    long t0 = ticker.read();
    long deadline = in(Duration.ofSeconds(1));
    CompletableFuture<byte[]> f = fetch(key(1), 0, deadline);
    // Waits of 25, 50, 100, 200, 400 ms: attempts at 0, 25, 75, 175, 375 and 775 ms; the next
    // wait (500 ms) would start the seventh past the deadline, so the flight stops after the sixth.
    long[] startsMs = {25, 75, 175, 375, 775};
    for (int i = 0; i < startsMs.length; i++) {
      store.fail(i, UNAVAILABLE);
      scheduler.advance(
          Duration.ofNanos(t0 + Duration.ofMillis(startsMs[i]).toNanos() - ticker.read()));
      assertThat(store.calls()).isEqualTo(i + 2);
    }
    store.fail(5, new StoreException(UNAVAILABLE, "connection reset"));
    assertThat(reader.flightCount()).as("no next attempt fits: the flight ended").isZero();
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    assertThat(f).as("the caller waits for its deadline").isNotDone();
    scheduler.advance(Duration.ofNanos(deadline - ticker.read() - 1));
    assertThat(f).isNotDone();
    scheduler.advance(Duration.ofNanos(1));
    assertRead(f, ReadException.Reason.DEADLINE);
    assertThat(failure(f)).hasMessageContaining("connection reset");
    scheduler.advance(THIRTY_S);
    assertThat(store.calls()).as("nothing after the deadline").isEqualTo(6);
    assertThat(telemetry.totalReads()).isEqualTo(1);
  }

  @Test
  void aFlightNobodyWaitsForFinishesItsRequestButStartsNoRetry() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1), 0, in(Duration.ofSeconds(1)));
    scheduler.advance(Duration.ofSeconds(1));
    assertRead(f, ReadException.Reason.DEADLINE);
    store.fail(0, THROTTLED);
    scheduler.advance(THIRTY_S);
    assertThat(store.calls()).isEqualTo(1);
    assertThat(reader.flightCount()).isZero();
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    assertThat(limit(0)).as("its answer still fed the limit").isEqualTo(32);
  }

  @Test
  void aNextAttemptThatWouldStartPastEveryDeadlineIsNotStarted() {
    reader(b -> {});
    jitter = 0.9;
    CompletableFuture<byte[]> a = fetch(key(1), 0, in(Duration.ofMillis(30)));
    CompletableFuture<byte[]> b = fetch(key(1), 1, in(Duration.ofMillis(40)));
    store.fail(0, THROTTLED); // the next attempt would start at 45 ms, after 40 ms
    assertThat(reader.flightCount()).as("the flight ended at once").isZero();
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    scheduler.advance(Duration.ofMillis(30));
    assertRead(a, ReadException.Reason.DEADLINE);
    assertThat(b).isNotDone();
    scheduler.advance(Duration.ofMillis(10));
    assertRead(b, ReadException.Reason.DEADLINE);
    assertThat(store.calls()).isEqualTo(1);
    assertThat(telemetry.totalReads()).isEqualTo(2);
  }

  @Test
  void aRetryStillRunningAtTheDeadlineFailsTheCallerAndStartsNoOther() {
    reader(b -> {});
    jitter = 0.0;
    CompletableFuture<byte[]> f = fetch(key(1), 0, in(Duration.ofMillis(100)));
    store.fail(0, throttled(Duration.ofMillis(90))); // Retry-After fits: the retry runs at 90 ms
    scheduler.advance(Duration.ofMillis(89));
    assertThat(store.calls()).isEqualTo(1);
    scheduler.advance(Duration.ofMillis(1));
    assertThat(store.calls()).isEqualTo(2);
    scheduler.advance(Duration.ofMillis(10));
    assertRead(f, ReadException.Reason.DEADLINE);
    assertThat(failure(f)).hasMessageContaining("THROTTLED: SlowDown");
    store.fail(1, THROTTLED);
    scheduler.advance(THIRTY_S);
    assertThat(store.calls()).isEqualTo(2);
    assertThat(reader.flightCount()).isZero();
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
  }

  @Test
  void aRetryReentersTheLaneAndQueuesOrIsShedLikeAnyRequest() {
    reader(b -> b.maxInflight(2).queueMax(1));
    CompletableFuture<byte[]> a = fetch(key(1));
    CompletableFuture<byte[]> joined = fetch(key(1), 1, in(THIRTY_S));
    fetch(key(2));
    store.fail(0, THROTTLED); // limit 2 -> 1; key 2 still runs
    CompletableFuture<byte[]> queued = fetch(key(3));
    assertThat(reader.stats().get(0)).isEqualTo(new StoreStats(1, 1, 1));
    scheduler.advance(Duration.ofMillis(25));
    assertRead(a, ReadException.Reason.OVERLOADED);
    assertRead(joined, ReadException.Reason.OVERLOADED);
    assertThat(failure(a)).as("shed, naming why it was retrying").hasMessageContaining("THROTTLED");
    assertThat(telemetry.reads(0, STORE)).as("it had asked the store").isEqualTo(1);
    assertThat(telemetry.reads(1, SHED)).isEqualTo(1);
    assertThat(store.calls()).isEqualTo(2);
    assertThat(reader.flightCount()).isEqualTo(2);
    store.answer(1, bytes("2"));
    assertThat(store.calls()).isEqualTo(3);
    store.answer(2, bytes("3"));
    assertValue(queued, "3");
  }

  @Test
  void aRetryWaitsInTheQueueForAFreeSlot() {
    reader(b -> b.maxInflight(2).queueMax(5));
    CompletableFuture<byte[]> a = fetch(key(1));
    fetch(key(2));
    store.fail(0, THROTTLED); // limit 1, key 2 runs
    scheduler.advance(Duration.ofMillis(25));
    assertThat(reader.stats().get(0)).isEqualTo(new StoreStats(1, 1, 1));
    assertThat(store.calls()).isEqualTo(2);
    store.answer(1, bytes("2"));
    assertThat(store.calls()).as("the freed slot goes to the retry").isEqualTo(3);
    store.answer(2, bytes("1"));
    assertValue(a, "1");
  }

  @Test
  void finalAnswersAreNotRetried() {
    reader(b -> {});
    CompletableFuture<byte[]> missing = fetch(key(1));
    CompletableFuture<byte[]> denied = fetch(key(2));
    store.fail(0, NOT_FOUND);
    store.fail(1, FORBIDDEN);
    assertStore(missing, NOT_FOUND);
    assertStore(denied, FORBIDDEN);
    scheduler.advance(THIRTY_S);
    assertThat(store.calls()).isEqualTo(2);
  }

  @Test
  void closingWhileBackingOffFailsCallersAndEndsTheFlight() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1));
    store.fail(0, THROTTLED);
    reader.close();
    assertRead(f, ReadException.Reason.CLOSED);
    assertThat(reader.flightCount()).isZero();
    scheduler.advance(THIRTY_S);
    assertThat(store.calls()).isEqualTo(1);
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    assertThat(telemetry.totalReads()).isEqualTo(1);
  }

  // ---- Decision 4: what is not a store failure passes through ----

  /** Stands for the redeemer's verification failure (a Failure CORRUPT) inside the function. */
  private static final class Verdict extends RuntimeException {
    Verdict() {
      super("CORRUPT: checksum mismatch");
    }
  }

  @Test
  void aVerdictOfTheFunctionReachesEveryCallerUnchangedUncachedUnretried() {
    reader(b -> b.maxInflight(8));
    CompletableFuture<byte[]> a = fetch(key(1));
    CompletableFuture<byte[]> b = fetch(key(1), 1, in(THIRTY_S));
    Verdict corrupt = new Verdict();
    store.fail(0, new CompletionException(corrupt)); // as a thenApply inside the function fails
    assertThat(failure(a)).isSameAs(corrupt);
    assertThat(failure(b)).isSameAs(corrupt);
    assertThat(limit(0)).as("IGNORE: says nothing about load").isEqualTo(8);
    scheduler.advance(THIRTY_S);
    assertThat(store.calls()).as("not retried").isEqualTo(1);
    fetch(key(1));
    assertThat(store.calls()).as("not cached").isEqualTo(2);
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    assertThat(telemetry.reads(1, COALESCED)).isEqualTo(1);
  }

  @Test
  void anErrorPassesThroughUnchangedWhetherThrownOrCompletedWith() {
    reader(b -> b.maxInflight(8));
    OutOfMemoryError oom = new OutOfMemoryError("Java heap space");
    CompletableFuture<byte[]> async = fetch(key(1));
    store.fail(0, oom);
    assertThat(failure(async)).isSameAs(oom);
    StackOverflowError soe = new StackOverflowError();
    CompletableFuture<byte[]> sync =
        reader.fetch(
            key(2),
            0,
            () -> {
              throw soe;
            },
            in(THIRTY_S));
    assertThat(failure(sync)).isSameAs(soe);
    assertThat(limit(0)).isEqualTo(8);
    scheduler.advance(THIRTY_S);
    assertThat(store.calls()).isEqualTo(1);
    assertThat(reader.flightCount()).isZero();
    assertThat(reader.stats().get(0).inflight()).isZero();
  }
}
