package io.ankusa.claimcheck.internal.reader;

import static io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome.COALESCED;
import static io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome.SHED;
import static io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome.STORE;
import static io.ankusa.claimcheck.store.StoreException.Kind.FORBIDDEN;
import static io.ankusa.claimcheck.store.StoreException.Kind.NOT_FOUND;
import static io.ankusa.claimcheck.store.StoreException.Kind.THROTTLED;
import static io.ankusa.claimcheck.store.StoreException.Kind.UNAVAILABLE;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * One test per sentence of the Reader seed ({@code seeds/000_0de809b9faaca561.txt}), on a driven
 * ticker, hand-fired timers and store requests the test answers by hand.
 *
 * <table>
 * <caption>Seed sentence → test</caption>
 * <tr><th>Seed sentence</th><th>Test</th></tr>
 * <tr><td>The one process every store read passes through, so the gateway stays fast while a
 *     store throttles or hangs</td><td>{@link #aHungStoreDoesNotSlowCachedReads}; sharing:
 *     {@code ClaimReadersTest}</td></tr>
 * <tr><td>Coalescing — concurrent reads of one key (index, bytes, range) share one store
 *     request, and every caller gets its answer</td>
 *     <td>{@link #concurrentFetchesOfOneKeyShareOneStoreRequest},
 *     {@link #aThousandConcurrentFetchesOfOneKeyMakeOneStoreRequest},
 *     {@link #aStoreFailureReachesEveryCallerOfTheFetch}, {@link #differentKeysAreDifferentRequests}</td></tr>
 * <tr><td>Per store, at most limit store requests run at once</td>
 *     <td>{@link #atMostLimitStoreRequestsRunAtOnce}</td></tr>
 * <tr><td>It starts at read_max_inflight</td><td>{@link #theLimitStartsAtMaxInflight}</td></tr>
 * <tr><td>halves when the store throttles (429, 503) or cannot answer</td>
 *     <td>{@link #theLimitHalvesWhenTheStoreThrottles},
 *     {@link #theLimitHalvesWhenTheStoreCannotAnswer}; during retries:
 *     {@code ReaderRetryTest#theLimitHalvesOnEveryThrottledRetry}</td></tr>
 * <tr><td>at most once per 100 ms, so a wave failing together halves it once</td>
 *     <td>{@link #aWaveOfFailuresHalvesTheLimitOnce}</td></tr>
 * <tr><td>grows by one after limit successes, back up to that ceiling (AIMD)</td>
 *     <td>{@link #theLimitGrowsByOneAfterLimitSuccessesUpToTheCeiling}</td></tr>
 * <tr><td>A missing key is a success; a 403 changes nothing</td>
 *     <td>{@link #aMissingKeyIsASuccess}, {@link #aForbiddenChangesNothing}</td></tr>
 * <tr><td>A read that finds no free slot waits for one, up to read_queue_max per store</td>
 *     <td>{@link #aFetchWithNoFreeSlotWaitsForOneInOrder}</td></tr>
 * <tr><td>past that it is shed at once with unavailable: overloaded</td>
 *     <td>{@link #pastTheQueueBoundAFetchIsShedAtOnce}</td></tr>
 * <tr><td>every caller passes a deadline and gets unavailable: deadline once it passes</td>
 *     <td>{@link #aCallerGetsDeadlineWhenItPassesWhileTheRequestRuns},
 *     {@link #aCallerGetsDeadlineWhenItPassesWhileQueued}, {@link #eachCallerHasItsOwnDeadline},
 *     {@link #aDeadlineAlreadyPassedFailsAtOnceWithoutARequest}</td></tr>
 * <tr><td>a queued read whose deadline passed is dropped without a store request</td>
 *     <td>{@link #aQueuedFetchWhoseCallersAllGaveUpIsDroppedWithoutARequest}</td></tr>
 * <tr><td>A store request that outlives its callers still runs to the end and fills the cache,
 *     so the client's retry finds it</td><td>{@link #aRequestThatOutlivesItsCallersFillsTheCache}</td></tr>
 * <tr><td>A request gate — admit/release bound the requests served at once, cache hits
 *     included</td><td>{@link #theGateBoundsRequestsInFlightCacheHitsIncluded}</td></tr>
 * <tr><td>The gateway answers 503 past it, before it locates anything (the caller's part)</td>
 *     <td>{@link #aRefusedAdmitTakesNoPermit}</td></tr>
 * <tr><td>The limit is per store, not per key prefix</td><td>{@link #theLimitIsPerStore}</td></tr>
 * <tr><td>Every answer is charged to the store a fetch was addressed to (a search of several
 *     stores is charged to the pack's home)</td><td>{@link #anAnswerIsChargedToTheStoreTheFetchWasAddressedTo}</td></tr>
 * <tr><td>Only a :claim_check node runs it; a read elsewhere goes straight to the store</td>
 *     <td>not carried over: in this library every redeem reads through the reader (DESIGN.md)</td></tr>
 * <tr><td>Emits read once per caller, read_limit on every change, read_state every second per
 *     store it has read from</td><td>{@link #everyCallerIsCountedOnce},
 *     {@link #theLimitGrowsByOneAfterLimitSuccessesUpToTheCeiling} (limit changes),
 *     {@link #theTickPublishesTheStateOfStoresReadFrom}; Micrometer: {@code ReaderTelemetryTest}</td></tr>
 * <tr><td>key(): what a fetch reads; coalescing is by key</td><td>{@code FetchKeyTest}</td></tr>
 * <tr><td>admit: 0 admits everything, and so does a node whose reader is not running</td>
 *     <td>{@link #aZeroGateAdmitsEverything}, {@link #closingFailsWaitingCallersAndLaterFetches}</td></tr>
 * <tr><td>The gate is a set of request processes, not a counter: a killed one is dropped by the
 *     next tick</td><td>{@link #aPermitOfADeadThreadIsReclaimedByTheNextTick}</td></tr>
 * <tr><td>fetch: run fun under the store's limit or join a fetch already running; the fetch it
 *     started or joined runs to the end and fills the cache</td>
 *     <td>{@link #concurrentFetchesOfOneKeyShareOneStoreRequest},
 *     {@link #aRequestThatOutlivesItsCallersFillsTheCache}</td></tr>
 * <tr><td>Every caller counted once: store when the fetch finishes whether or not the caller still
 *     waits; coalesced with the answer; shed with none (queue full, deadline, reader down)</td>
 *     <td>{@link #everyCallerIsCountedOnce}, {@link #theStarterIsCountedWhenTheRequestFinishesEvenAfterItsDeadline}</td></tr>
 * <tr><td>release: give back the slot admit counted for the calling process</td>
 *     <td>{@link #releaseGivesBackOnlyTheCallingThreadsPermit}</td></tr>
 * <tr><td>stats: each store's limit, store requests running, and reads queued</td>
 *     <td>{@link #atMostLimitStoreRequestsRunAtOnce}</td></tr>
 * <tr><td>fetch's result: ok, the fun's error, or unavailable: overloaded | deadline | exit</td>
 *     <td>{@link #aFetchFunctionThatThrowsPassesItsThrowableThroughUnretried} (Java has no
 *     process exit: whatever the function throws is its own answer, delivered unchanged;
 *     retries of throttled and unavailable answers: {@code ReaderRetryTest})</td></tr>
 * </table>
 */
class ClaimReaderSeedTest extends ReaderTestSupport {

  @Test
  void aHungStoreDoesNotSlowCachedReads() {
    reader(b -> b.maxInflight(1).queueMax(0));
    reader.fetch(key(1), 0, answers(bytes("cached")), in(THIRTY_S));
    CompletableFuture<byte[]> hung = fetch(key(2));
    assertThat(hung).isNotDone();
    assertValue(reader.fetch(key(1), 0, never(), in(THIRTY_S)), "cached");
  }

  @Test
  void concurrentFetchesOfOneKeyShareOneStoreRequest() {
    reader(b -> {});
    List<FetchKey> keys =
        List.of(
            FetchKey.range("t1", "ab", 0, 40),
            FetchKey.range("t1", "ab", 40, 60),
            FetchKey.range("t1", "ab", 100, 50));
    List<List<CompletableFuture<byte[]>>> callers = new ArrayList<>();
    for (FetchKey k : keys) {
      callers.add(List.of(fetch(k), fetch(k), fetch(equalCopy(k))));
    }
    assertThat(store.calls()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      store.answer(i, bytes("answer" + i));
      for (CompletableFuture<byte[]> c : callers.get(i)) {
        assertValue(c, "answer" + i);
      }
    }
  }

  private static FetchKey equalCopy(FetchKey k) {
    return new FetchKey(new String(k.tenant()), new String(k.packIdHex()), k.first(), k.length());
  }

  @Test
  void aThousandConcurrentFetchesOfOneKeyMakeOneStoreRequest() {
    reader(b -> {});
    List<CompletableFuture<byte[]>> callers = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      callers.add(fetch(key(7)));
    }
    store.answer(0, bytes("one"));
    assertThat(store.calls()).isEqualTo(1);
    assertThat(callers).allSatisfy(c -> assertValue(c, "one"));
  }

  @Test
  void aStoreFailureReachesEveryCallerOfTheFetch() {
    reader(b -> {});
    CompletableFuture<byte[]> a = fetch(key(1));
    CompletableFuture<byte[]> b = fetch(key(1));
    store.fail(0, NOT_FOUND);
    assertStore(a, NOT_FOUND);
    assertStore(b, NOT_FOUND);
    assertThat(failure(a)).isSameAs(failure(b));
    fetch(key(1));
    assertThat(store.calls()).as("a failure is not cached").isEqualTo(2);
  }

  @Test
  void differentKeysAreDifferentRequests() {
    reader(b -> {});
    fetch(FetchKey.range("t1", "ab", 0, 10));
    fetch(FetchKey.range("t1", "ab", 0, 11));
    fetch(FetchKey.range("t1", "ab", 10, 10));
    fetch(FetchKey.range("t1", "ac", 0, 10));
    fetch(FetchKey.range("t2", "ab", 0, 10));
    assertThat(store.calls()).isEqualTo(5);
  }

  @Test
  void atMostLimitStoreRequestsRunAtOnce() {
    reader(b -> b.maxInflight(3));
    List<CompletableFuture<byte[]>> f = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      f.add(fetch(key(i)));
    }
    assertThat(store.calls()).isEqualTo(3);
    assertThat(reader.stats().get(0)).isEqualTo(new StoreStats(3, 3, 2));
    store.answer(0, bytes("a"));
    assertThat(store.calls()).isEqualTo(4);
    assertThat(reader.stats().get(0)).isEqualTo(new StoreStats(3, 3, 1));
    store.answer(1, bytes("b"));
    store.answer(2, bytes("c"));
    store.answer(3, bytes("d"));
    store.answer(4, bytes("e"));
    assertValue(f.get(4), "e");
    assertThat(reader.stats().get(0)).isEqualTo(new StoreStats(3, 0, 0));
  }

  @Test
  void theLimitStartsAtMaxInflight() {
    reader(b -> b.maxInflight(7));
    assertThat(reader.stats()).containsOnlyKeys(0, 1);
    assertThat(limit(0)).isEqualTo(7);
    assertThat(limit(1)).isEqualTo(7);
  }

  @Test
  void theLimitHalvesWhenTheStoreThrottles() {
    reader(b -> b.maxInflight(8));
    CompletableFuture<byte[]> f = fetch(key(1), 0, in(Duration.ofSeconds(1)));
    store.fail(0, THROTTLED);
    assertThat(limit(0)).isEqualTo(4);
    assertThat(f).as("a throttled read is retried inside its deadline").isNotDone();
  }

  @Test
  void theLimitHalvesWhenTheStoreCannotAnswer() {
    reader(b -> b.maxInflight(8));
    reader.fetch(key(1), 0, fails(UNAVAILABLE), in(THIRTY_S));
    assertThat(limit(0)).isEqualTo(4);
    ticker.advance(Duration.ofMillis(100));
    reader.fetch(key(2), 0, fails(UNAVAILABLE), in(THIRTY_S));
    assertThat(limit(0)).isEqualTo(2);
    ticker.advance(Duration.ofMillis(100));
    reader.fetch(key(3), 0, fails(UNAVAILABLE), in(THIRTY_S));
    ticker.advance(Duration.ofMillis(100));
    reader.fetch(key(4), 0, fails(UNAVAILABLE), in(THIRTY_S));
    assertThat(limit(0)).as("never below 1").isEqualTo(1);
  }

  @Test
  void aWaveOfFailuresHalvesTheLimitOnce() {
    reader(b -> b.maxInflight(8));
    for (int i = 0; i < 8; i++) {
      fetch(key(i));
    }
    for (int i = 0; i < 4; i++) {
      store.fail(i, THROTTLED);
    }
    assertThat(limit(0)).isEqualTo(4);
    ticker.advance(Duration.ofMillis(99));
    store.fail(4, UNAVAILABLE);
    assertThat(limit(0)).as("within 100 ms of the last halving").isEqualTo(4);
    ticker.advance(Duration.ofMillis(1));
    store.fail(5, THROTTLED);
    assertThat(limit(0)).isEqualTo(2);
    assertThat(telemetry.limits).containsExactly("0=4", "0=2");
  }

  @Test
  void theLimitGrowsByOneAfterLimitSuccessesUpToTheCeiling() {
    reader(b -> b.maxInflight(6));
    reader.fetch(key(0), 0, fails(THROTTLED), in(THIRTY_S));
    assertThat(limit(0)).isEqualTo(3);
    int k = 1;
    for (int i = 0; i < 2; i++) {
      reader.fetch(key(k++), 0, answers(bytes("x")), in(THIRTY_S));
    }
    assertThat(limit(0)).as("after limit-1 successes").isEqualTo(3);
    reader.fetch(key(k++), 0, answers(bytes("x")), in(THIRTY_S));
    assertThat(limit(0)).isEqualTo(4);
    for (int i = 0; i < 4 + 5 + 50; i++) {
      reader.fetch(key(k++), 0, answers(bytes("x")), in(THIRTY_S));
    }
    assertThat(limit(0)).as("back to the ceiling, not past it").isEqualTo(6);
    assertThat(telemetry.limits).containsExactly("0=3", "0=4", "0=5", "0=6");
  }

  @Test
  void aMissingKeyIsASuccess() {
    reader(b -> b.maxInflight(4));
    reader.fetch(key(0), 0, fails(THROTTLED), in(THIRTY_S));
    assertThat(limit(0)).isEqualTo(2);
    reader.fetch(key(1), 0, fails(NOT_FOUND), in(THIRTY_S));
    CompletableFuture<byte[]> f = reader.fetch(key(2), 0, fails(NOT_FOUND), in(THIRTY_S));
    assertStore(f, NOT_FOUND);
    assertThat(limit(0)).isEqualTo(3);
  }

  @Test
  void aForbiddenChangesNothing() {
    reader(b -> b.maxInflight(4));
    for (int i = 0; i < 5; i++) {
      assertStore(reader.fetch(key(i), 0, fails(FORBIDDEN), in(THIRTY_S)), FORBIDDEN);
    }
    assertThat(limit(0)).isEqualTo(4);
    reader.fetch(key(10), 0, fails(THROTTLED), in(THIRTY_S));
    reader.fetch(key(11), 0, answers(bytes("x")), in(THIRTY_S));
    reader.fetch(key(12), 0, fails(FORBIDDEN), in(THIRTY_S));
    assertThat(limit(0)).as("a 403 is not a success either").isEqualTo(2);
    reader.fetch(key(13), 0, answers(bytes("x")), in(THIRTY_S));
    assertThat(limit(0)).isEqualTo(3);
    assertThat(telemetry.limits).containsExactly("0=2", "0=3");
  }

  @Test
  void aFetchWithNoFreeSlotWaitsForOneInOrder() {
    reader(b -> b.maxInflight(1).queueMax(2));
    CompletableFuture<byte[]> a = fetch(key(1));
    CompletableFuture<byte[]> b = fetch(key(2));
    CompletableFuture<byte[]> c = fetch(key(3));
    assertThat(store.calls()).isEqualTo(1);
    assertThat(reader.stats().get(0).queued()).isEqualTo(2);
    store.answer(0, bytes("a"));
    assertValue(a, "a");
    assertThat(store.calls()).isEqualTo(2);
    store.answer(1, bytes("b"));
    assertValue(b, "b");
    store.answer(2, bytes("c"));
    assertValue(c, "c");
  }

  @Test
  void pastTheQueueBoundAFetchIsShedAtOnce() {
    reader(b -> b.maxInflight(1).queueMax(1));
    fetch(key(1));
    CompletableFuture<byte[]> queued = fetch(key(2));
    CompletableFuture<byte[]> shed = fetch(key(3));
    assertRead(shed, ReadException.Reason.OVERLOADED);
    assertThat(queued).isNotDone();
    assertThat(store.calls()).isEqualTo(1);
    assertThat(reader.stats().get(0).queued()).isEqualTo(1);
    CompletableFuture<byte[]> joins = fetch(key(2));
    assertThat(joins).as("joining a queued fetch takes no queue place").isNotDone();
  }

  @Test
  void aCallerGetsDeadlineWhenItPassesWhileTheRequestRuns() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1), 0, in(Duration.ofSeconds(1)));
    scheduler.advance(Duration.ofMillis(999));
    assertThat(f).isNotDone();
    scheduler.advance(Duration.ofMillis(1));
    assertRead(f, ReadException.Reason.DEADLINE);
    assertThat(store.running()).as("the store request still runs").isEqualTo(1);
  }

  @Test
  void aCallerGetsDeadlineWhenItPassesWhileQueued() {
    reader(b -> b.maxInflight(1));
    fetch(key(1));
    CompletableFuture<byte[]> f = fetch(key(2), 0, in(Duration.ofSeconds(1)));
    scheduler.advance(Duration.ofSeconds(1));
    assertRead(f, ReadException.Reason.DEADLINE);
  }

  @Test
  void eachCallerHasItsOwnDeadline() {
    reader(b -> {});
    CompletableFuture<byte[]> early = fetch(key(1), 0, in(Duration.ofSeconds(1)));
    CompletableFuture<byte[]> late = fetch(key(1), 0, in(Duration.ofSeconds(5)));
    scheduler.advance(Duration.ofSeconds(1));
    assertRead(early, ReadException.Reason.DEADLINE);
    assertThat(late).isNotDone();
    store.answer(0, bytes("x"));
    assertValue(late, "x");
    assertThat(store.calls()).isEqualTo(1);
  }

  @Test
  void aDeadlineAlreadyPassedFailsAtOnceWithoutARequest() {
    reader(b -> {});
    assertRead(fetch(key(1), 0, ticker.read()), ReadException.Reason.DEADLINE);
    assertThat(store.calls()).isZero();
  }

  @Test
  void aQueuedFetchWhoseCallersAllGaveUpIsDroppedWithoutARequest() {
    reader(b -> b.maxInflight(1));
    fetch(key(1));
    CompletableFuture<byte[]> a = fetch(key(2), 0, in(Duration.ofSeconds(1)));
    CompletableFuture<byte[]> b = fetch(key(2), 0, in(Duration.ofSeconds(2)));
    CompletableFuture<byte[]> kept = fetch(key(3), 0, in(Duration.ofSeconds(1)));
    fetch(key(3), 0, in(THIRTY_S));
    scheduler.advance(Duration.ofSeconds(1));
    assertRead(a, ReadException.Reason.DEADLINE);
    assertRead(kept, ReadException.Reason.DEADLINE);
    assertThat(reader.stats().get(0).queued()).isEqualTo(2);
    scheduler.advance(Duration.ofSeconds(1));
    assertRead(b, ReadException.Reason.DEADLINE);
    assertThat(reader.stats().get(0).queued()).as("dropped at once").isEqualTo(1);
    store.answer(0, bytes("1"));
    assertThat(store.calls()).as("key 2 is never asked; key 3 still has a caller").isEqualTo(2);
    store.answer(1, bytes("3"));
    assertThat(reader.stats().get(0)).isEqualTo(new StoreStats(1, 0, 0));
  }

  @Test
  void aRequestThatOutlivesItsCallersFillsTheCache() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1), 0, in(Duration.ofSeconds(1)));
    scheduler.advance(Duration.ofSeconds(1));
    assertRead(f, ReadException.Reason.DEADLINE);
    store.answer(0, bytes("late"));
    assertValue(reader.fetch(key(1), 0, never(), in(THIRTY_S)), "late");
    assertThat(reader.stats().get(0).inflight()).isZero();
  }

  @Test
  void theGateBoundsRequestsInFlightCacheHitsIncluded() {
    reader(b -> b.maxConcurrentReads(2));
    reader.fetch(key(1), 0, answers(bytes("x")), in(THIRTY_S));
    assertThat(reader.admit()).isTrue();
    assertValue(reader.fetch(key(1), 0, never(), in(THIRTY_S)), "x");
    assertThat(reader.admitted())
        .as("a request answered from the cache still holds its permit")
        .isEqualTo(1);
    assertThat(reader.admit()).isTrue();
    assertThat(reader.admit()).isFalse();
    reader.release();
    assertThat(reader.admit()).isTrue();
    reader.release();
    reader.release();
    assertThat(reader.admitted()).isZero();
  }

  @Test
  void aRefusedAdmitTakesNoPermit() {
    reader(b -> b.maxConcurrentReads(1));
    assertThat(reader.admit()).isTrue();
    assertThat(reader.admit()).isFalse();
    assertThat(reader.admitted()).isEqualTo(1);
    reader.release();
    assertThat(reader.admitted()).isZero();
  }

  @Test
  void aZeroGateAdmitsEverything() {
    reader(b -> b.maxConcurrentReads(0));
    for (int i = 0; i < 10_000; i++) {
      assertThat(reader.admit()).isTrue();
    }
    assertThat(reader.admitted()).isZero();
  }

  @Test
  void aPermitOfADeadThreadIsReclaimedByTheNextTick() throws InterruptedException {
    reader(b -> b.maxConcurrentReads(3));
    Thread t = new Thread(() -> assertThat(reader.admit()).isTrue());
    t.start();
    t.join();
    assertThat(reader.admit()).isTrue();
    assertThat(reader.admitted()).isEqualTo(2);
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(reader.admitted()).as("only the dead thread's permit is reclaimed").isEqualTo(1);
  }

  @Test
  void releaseGivesBackOnlyTheCallingThreadsPermit() throws InterruptedException {
    reader(b -> b.maxConcurrentReads(3));
    assertThat(reader.admit()).isTrue();
    Thread t = new Thread(reader::release);
    t.start();
    t.join();
    assertThat(reader.admitted()).isEqualTo(1);
    reader.release();
    reader.release();
    assertThat(reader.admitted()).isZero();
  }

  @Test
  void theLimitIsPerStore() {
    reader(b -> b.maxInflight(1).queueMax(5));
    reader.fetch(key(0), 0, fails(THROTTLED), in(THIRTY_S));
    fetch(key(1), 0, in(THIRTY_S));
    fetch(key(2), 0, in(THIRTY_S));
    CompletableFuture<byte[]> other = fetch(key(3), 1, in(THIRTY_S));
    assertThat(store.calls()).as("store 1 has its own slot").isEqualTo(2);
    assertThat(reader.stats().get(0)).isEqualTo(new StoreStats(1, 1, 1));
    assertThat(reader.stats().get(1)).isEqualTo(new StoreStats(1, 1, 0));
    store.answer(1, bytes("3"));
    assertValue(other, "3");
  }

  @Test
  void anAnswerIsChargedToTheStoreTheFetchWasAddressedTo() {
    reader(b -> b.maxInflight(8));
    // The function searches both stores (here: store 0 throttles, and the retry finds the pack),
    // but the fetch is addressed to the pack's home, store 1, which is charged.
    CompletableFuture<byte[]> f = fetch(FetchKey.range("t1", "ab", 0, 64), 1, in(THIRTY_S));
    store.fail(0, THROTTLED);
    assertThat(limit(1)).isEqualTo(4);
    assertThat(limit(0)).isEqualTo(8);
    scheduler.advance(Duration.ofSeconds(1));
    store.answer(1, bytes("claim"));
    assertValue(f, "claim");
    assertThat(telemetry.reads(1, STORE)).isEqualTo(1);
    assertThat(telemetry.reads(0, STORE)).isZero();
  }

  @Test
  void everyCallerIsCountedOnce() {
    reader(b -> b.maxInflight(1).queueMax(1));
    CompletableFuture<byte[]> starter = fetch(key(1), 0, in(THIRTY_S));
    CompletableFuture<byte[]> joiner = fetch(key(1), 1, in(THIRTY_S));
    CompletableFuture<byte[]> gaveUp = fetch(key(1), 1, in(Duration.ofSeconds(1)));
    fetch(key(2), 0, in(THIRTY_S)); // queued
    CompletableFuture<byte[]> shed = fetch(key(3), 0, in(THIRTY_S));
    scheduler.advance(Duration.ofSeconds(1));
    store.answer(0, bytes("x"));
    assertValue(starter, "x");
    assertValue(joiner, "x");
    assertRead(gaveUp, ReadException.Reason.DEADLINE);
    assertRead(shed, ReadException.Reason.OVERLOADED);
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    assertThat(telemetry.reads(1, COALESCED)).isEqualTo(1);
    assertThat(telemetry.reads(1, SHED)).isEqualTo(1);
    assertThat(telemetry.reads(0, SHED)).isEqualTo(1);
    assertThat(telemetry.totalReads()).isEqualTo(4);
    assertThat(store.calls()).as("the queued fetch got the freed slot").isEqualTo(2);
    reader.close();
    assertThat(reader.fetch(key(9), 0, never(), in(THIRTY_S))).isCompletedExceptionally();
    assertThat(telemetry.reads(0, SHED)).as("a fetch of a closed reader").isEqualTo(2);
    assertThat(telemetry.totalReads()).isEqualTo(5);
    store.answer(1, bytes("2"));
    assertThat(telemetry.reads(0, STORE)).as("its request finished after close").isEqualTo(2);
    assertThat(telemetry.totalReads()).isEqualTo(6);
  }

  @Test
  void theStarterIsCountedWhenTheRequestFinishesEvenAfterItsDeadline() {
    reader(b -> {});
    CompletableFuture<byte[]> f = fetch(key(1), 0, in(Duration.ofSeconds(1)));
    scheduler.advance(Duration.ofSeconds(1));
    assertRead(f, ReadException.Reason.DEADLINE);
    assertThat(telemetry.totalReads()).isZero();
    store.answer(0, bytes("x"));
    assertThat(telemetry.reads(0, STORE)).isEqualTo(1);
    assertThat(telemetry.totalReads()).isEqualTo(1);
  }

  @Test
  void theTickPublishesTheStateOfStoresReadFrom() {
    reader(b -> b.maxInflight(4));
    fetch(key(1));
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(telemetry.states).containsExactly("0:4/1/0");
    store.answer(0, bytes("x"));
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(telemetry.states).containsExactly("0:4/1/0", "0:4/0/0");
  }

  @Test
  void aFetchFunctionThatThrowsPassesItsThrowableThroughUnretried() {
    reader(b -> b.maxInflight(8));
    IllegalStateException bug = new IllegalStateException("bug");
    CompletableFuture<byte[]> thrown =
        reader.fetch(
            key(1),
            0,
            () -> {
              throw bug;
            },
            in(THIRTY_S));
    assertThat(failure(thrown)).isSameAs(bug);
    assertThat(failure(reader.fetch(key(2), 0, () -> null, in(THIRTY_S))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("returned null");
    assertThat(failure(reader.fetch(key(3), 0, answers(null), in(THIRTY_S))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("null bytes");
    scheduler.advance(THIRTY_S);
    assertThat(limit(0)).as("a defect of the function says nothing about the store").isEqualTo(8);
    assertThat(reader.stats().get(0).inflight()).isZero();
    assertThat(reader.flightCount()).isZero();
  }

  @Test
  void closingFailsWaitingCallersAndLaterFetches() {
    reader(b -> b.maxInflight(1).maxConcurrentReads(1));
    CompletableFuture<byte[]> running = fetch(key(1));
    CompletableFuture<byte[]> queued = fetch(key(2));
    reader.close();
    assertRead(running, ReadException.Reason.CLOSED);
    assertRead(queued, ReadException.Reason.CLOSED);
    assertRead(fetch(key(3)), ReadException.Reason.CLOSED);
    assertThat(store.calls()).isEqualTo(1);
    assertThat(reader.admit()).as("a stopped reader has no gate to count at").isTrue();
    assertThat(reader.admit()).isTrue();
    store.answer(0, bytes("late"));
    assertThat(reader.stats().get(0).inflight()).isZero();
  }
}
