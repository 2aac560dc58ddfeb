package io.ankusa.claimcheck.internal.placement;

import static io.ankusa.claimcheck.store.memory.MemoryStore.Op.GET;
import static io.ankusa.claimcheck.store.memory.MemoryStore.Op.PUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.breaker.BreakerListener.Transition;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Every sentence of the Stores seed ({@code shared/seeds/002}), proved with in-memory stores and a
 * driven clock. The same behaviours are proved again against S3Proxy behind a fault proxy in {@code
 * FailoverS3IT}.
 *
 * <table>
 * <caption>Seed sentence → test</caption>
 * <tr><td>ordered: the first store; the others take packs only while it is down</td>
 *     <td>{@link #orderedHomeIsStoreZero}, {@link #orderedFailsOverOnlyWhileStoreZeroIsDown}</td></tr>
 * <tr><td>hash: pack id modulo store count, spread evenly; next stores take over while home is down</td>
 *     <td>{@link #hashSpreadsPacksEvenly}, {@link #hashFailsOverToTheNextStoreWrapping}</td></tr>
 * <tr><td>a write tries home, then each next in list order, wrapping, and stops at the first that takes it</td>
 *     <td>{@link #hashFailsOverToTheNextStoreWrapping}, {@link #writeStopsAtTheFirstStoreThatTakesThePack}</td></tr>
 * <tr><td>the store a pack landed in is not recorded anywhere</td>
 *     <td>{@link #readFindsAFailedOverPackWithoutBeingToldWhere}</td></tr>
 * <tr><td>a store that could not answer is skipped by later writes, searched last by later reads, for the cooldown, then tried again</td>
 *     <td>{@link #openBreakerSkipsStoreForWritesUntilCooldownEnds}, {@link #openStoreIsSearchedLastButNeverSkipped}</td></tr>
 * <tr><td>any answer closes it; not a 403, not a missing key</td>
 *     <td>{@link #anyAnswerClosesTheBreaker}, {@link #forbiddenAndMissingNeverOpenTheBreaker}</td></tr>
 * <tr><td>when every store is down every store is tried anyway: a write is never refused untried</td>
 *     <td>{@link #everyStoreOpenStillTriesEveryStore}</td></tr>
 * <tr><td>the cooldown is fixed</td><td>{@link #cooldownIsFixed}</td></tr>
 * <tr><td>each open and close emits an event</td><td>{@link #eachOpenAndCloseIsOneEvent}</td></tr>
 * <tr><td>a restart closes them all</td><td>{@link #aRestartClosesEveryBreaker}</td></tr>
 * <tr><td>a throttled answer never opens the breaker</td><td>{@link #throttlingNeverOpensTheBreaker}</td></tr>
 * <tr><td>a read searches every store at the configured layout, then every store at the other</td>
 *     <td>{@link #readSearchesConfiguredLayoutThenTheOther}</td></tr>
 * <tr><td>a pack written before key_layout or placement changed is still found</td>
 *     <td>{@link #packWrittenBeforeLayoutChangedIsFound}, {@link #packWrittenBeforePlacementChangedIsFound}</td></tr>
 * <tr><td>a hung store costs one read its timeout, later reads go to healthy stores first; an answer closes it</td>
 *     <td>{@link #hungStoreCostsOneReadItsTimeoutOnce}</td></tr>
 * <tr><td>a store that could not answer is not asked again within the same read (nor one that throttled)</td>
 *     <td>{@link #storeThatCouldNotAnswerIsAskedOncePerRead}, {@link #throttlingStoreIsAskedOncePerRead}</td></tr>
 * <tr><td>a 403 is asked again</td><td>{@link #forbiddenStoreIsAskedAtBothLayouts}</td></tr>
 * <tr><td>not_found only when every store answered; else the first such error</td>
 *     <td>{@link #notFoundOnlyWhenEveryStoreAnswered}, {@link #missingEverywhereIsNotFound}, {@link #forbiddenIsReportedWhenNoStoreHasIt}</td></tr>
 * <tr><td>adding a store moves hash homes; the search still finds older packs</td>
 *     <td>{@link #addingAStoreKeepsOldPacksReadable}</td></tr>
 * <tr><td>a store index past the end of the list is not found</td><td>{@link #storeIndexPastTheListIsNotFound}</td></tr>
 * <tr><td>already exists at once with no failover</td><td>{@link #collisionEndsTheWriteAtOnce}</td></tr>
 * <tr><td>a throttled home fails over to the next store (without opening its breaker)</td>
 *     <td>{@link #writeStopsAtTheFirstStoreThatTakesThePack}, {@link #throttlingNeverOpensTheBreaker};
 *     every store throttling: retried inside the write deadline, {@code WriteRetryTest}</td></tr>
 * <tr><td>every attempt fails: unavailable with each store's reason in attempt order</td>
 *     <td>{@link #everyAttemptFailedListsEachReasonInAttemptOrder}, {@link #singleAttemptFailureIsUnavailable}</td></tr>
 * <tr><td>the write deadline is the largest op deadline from now and covers every store tried</td>
 *     <td>{@link #writeDeadlineIsTheLargestOpDeadline}, {@link #writeDeadlineCoversEveryStoreTried}</td></tr>
 * </table>
 */
class StoresSeedTest {

  private static final String TENANT = "acme";
  private static final byte[] PACK = "pack-bytes".getBytes(StandardCharsets.UTF_8);
  private static final Duration OP = Duration.ofSeconds(2);
  private static final Duration COOLDOWN = Duration.ofSeconds(30);

  private final FakeTicker ticker = new FakeTicker();
  private final List<MemoryStore> mem = new ArrayList<>();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());

  private ClaimStores stores(int n, Placement placement, KeyLayout layout) {
    while (mem.size() < n) {
      mem.add(MemoryStores.create("s" + mem.size(), ticker.hangClock()));
    }
    ClaimStores.Builder b =
        ClaimStores.builder()
            .placement(placement)
            .layout(layout)
            .cooldown(COOLDOWN)
            .ticker(ticker)
            .scheduler(WriteRetryTest.spending(ticker))
            .retry(WriteRetryTest.HALF_JITTER)
            .breakerListener((store, t) -> events.add(store + ":" + t));
    for (int i = 0; i < n; i++) {
      b.add(mem.get(i), OP);
    }
    return b.build();
  }

  private static int write(ClaimStores s, long packId) {
    return s.write(TENANT, packId, PACK, s.writeDeadline()).join();
  }

  private ClaimStores.Located read(ClaimStores s, long packId) {
    return s.read(TENANT, packId, 0, 100, readDeadline()).join();
  }

  private long readDeadline() {
    return ticker.read() + Duration.ofSeconds(10).toNanos();
  }

  private static StoreException failure(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return StoreException.of(e);
    }
    throw new AssertionError("expected a failure, got " + f.join());
  }

  private String flat(long packId) {
    return KeyLayout.FLAT.key(TENANT, packId);
  }

  // ---- Placement ----

  @Test
  void orderedHomeIsStoreZero() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    for (long id = 1; id < 50; id++) {
      assertThat(s.home(id * 7919)).isZero();
      assertThat(write(s, id * 7919)).isZero();
    }
    assertThat(mem.get(1).keys()).isEmpty();
    assertThat(mem.get(2).keys()).isEmpty();
  }

  @Test
  void orderedFailsOverOnlyWhileStoreZeroIsDown() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failAlways(PUT, Kind.UNAVAILABLE);
    assertThat(write(s, 1)).isEqualTo(1);
    mem.get(0).clearFaults();
    ticker.advance(COOLDOWN);
    assertThat(write(s, 2)).isZero();
  }

  @Test
  void hashSpreadsPacksEvenly() {
    ClaimStores s = stores(4, Placement.HASH, KeyLayout.FLAT);
    java.util.SplittableRandom r = new java.util.SplittableRandom(42);
    int[] counts = new int[4];
    for (int i = 0; i < 4000; i++) {
      long id = r.nextLong();
      assertThat(s.home(id)).isEqualTo((int) Long.remainderUnsigned(id, 4));
      counts[write(s, id)]++;
    }
    for (int c : counts) {
      assertThat(c).isBetween(850, 1150);
    }
  }

  @Test
  void hashFailsOverToTheNextStoreWrapping() {
    ClaimStores s = stores(3, Placement.HASH, KeyLayout.FLAT);
    long homeTwo = 5; // 5 mod 3 = 2
    mem.get(2).failAlways(PUT, Kind.UNAVAILABLE);
    assertThat(write(s, homeTwo)).isZero(); // 2 -> wraps to 0
    mem.get(0).failAlways(PUT, Kind.UNAVAILABLE);
    assertThat(write(s, homeTwo + 3)).isEqualTo(1); // 2 (open, skipped) 0 (open, skipped) -> 1
  }

  @Test
  void writeStopsAtTheFirstStoreThatTakesThePack() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failAlways(PUT, Kind.THROTTLED);
    assertThat(write(s, 9)).isEqualTo(1);
    assertThat(mem.get(0).count(PUT)).isEqualTo(1);
    assertThat(mem.get(1).count(PUT)).isEqualTo(1);
    assertThat(mem.get(2).count(PUT)).isZero();
  }

  @Test
  void readFindsAFailedOverPackWithoutBeingToldWhere() {
    ClaimStores s = stores(3, Placement.HASH, KeyLayout.FLAT);
    mem.get(1).failTimes(PUT, Kind.UNAVAILABLE, 1);
    assertThat(write(s, 4)).isEqualTo(2); // home 1 failed, 2 took it
    ticker.advance(COOLDOWN);
    ClaimStores.Located found = read(s, 4);
    assertThat(found.bytes()).isEqualTo(PACK);
    assertThat(found.store()).isEqualTo(2);
    assertThat(mem.get(1).count(GET)).isEqualTo(1); // home asked first
  }

  // ---- Breaker ----

  @Test
  void openBreakerSkipsStoreForWritesUntilCooldownEnds() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failTimes(PUT, Kind.UNAVAILABLE, 1);
    assertThat(write(s, 1)).isEqualTo(1);
    assertThat(s.breaker(0).isOpen()).isTrue();
    ticker.advance(COOLDOWN.minusMillis(1));
    assertThat(write(s, 2)).isEqualTo(1);
    assertThat(mem.get(0).count(PUT)).isEqualTo(1); // skipped
    ticker.advance(Duration.ofMillis(1));
    assertThat(write(s, 3)).isZero(); // tried again, answered
    assertThat(s.breaker(0).isOpen()).isFalse();
  }

  @Test
  void openStoreIsSearchedLastButNeverSkipped() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    write(s, 1); // lands in 0
    mem.get(0).failTimes(GET, Kind.UNAVAILABLE, 1);
    assertThat(failure(s.read(TENANT, 1, 0, 10, readDeadline())).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(s.breaker(0).isOpen()).isTrue();
    long before1 = mem.get(1).count(GET);
    long before2 = mem.get(2).count(GET);
    ClaimStores.Located found = read(s, 1);
    assertThat(found.store()).isZero();
    assertThat(mem.get(1).count(GET) - before1).isEqualTo(2); // both layouts first
    assertThat(mem.get(2).count(GET) - before2).isEqualTo(2);
    assertThat(s.breaker(0).isOpen()).isFalse(); // its answer closed it
  }

  @Test
  void anyAnswerClosesTheBreaker() {
    for (Kind answer : new Kind[] {Kind.NOT_FOUND, Kind.FORBIDDEN, Kind.THROTTLED}) {
      ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
      mem.forEach(MemoryStore::clearObjects);
      mem.get(0).clearFaults();
      mem.get(0).failTimes(PUT, Kind.UNAVAILABLE, 1);
      write(s, 1);
      assertThat(s.breaker(0).isOpen()).isTrue();
      mem.get(0).failTimes(GET, answer, 1);
      s.read(TENANT, 77, 0, 1, s.writeDeadline()).exceptionally(t -> null).join();
      assertThat(s.breaker(0).isOpen()).as("after %s", answer).isFalse();
    }
  }

  @Test
  void forbiddenAndMissingNeverOpenTheBreaker() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failTimes(PUT, Kind.FORBIDDEN, 1);
    assertThat(write(s, 1)).isEqualTo(1);
    s.read(TENANT, 999, 0, 1, s.writeDeadline()).exceptionally(t -> null).join(); // missing
    mem.get(0).failAlways(GET, Kind.FORBIDDEN);
    s.read(TENANT, 998, 0, 1, s.writeDeadline()).exceptionally(t -> null).join();
    assertThat(s.breaker(0).isOpen()).isFalse();
    assertThat(events).isEmpty();
  }

  @Test
  void everyStoreOpenStillTriesEveryStore() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    for (MemoryStore m : mem) {
      m.failTimes(PUT, Kind.UNAVAILABLE, 1);
    }
    // A deadline too short for a second round (its first wait is 25 ms), so every breaker opens.
    assertThat(
            failure(s.write(TENANT, 1, PACK, ticker.read() + Duration.ofMillis(20).toNanos()))
                .kind())
        .isEqualTo(Kind.UNAVAILABLE);
    for (int i = 0; i < 3; i++) {
      assertThat(s.breaker(i).isOpen()).isTrue();
    }
    assertThat(write(s, 2)).isZero(); // all open: tried anyway, store 0 takes it
    for (MemoryStore m : mem.subList(1, 3)) {
      assertThat(m.count(PUT)).isEqualTo(1);
    }
  }

  @Test
  void cooldownIsFixed() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    for (int round = 0; round < 3; round++) {
      mem.get(0).failTimes(PUT, Kind.UNAVAILABLE, 1);
      write(s, round * 10L + 1);
      ticker.advance(COOLDOWN.minusMillis(1));
      assertThat(s.breaker(0).isOpen()).isTrue();
      ticker.advance(Duration.ofMillis(1));
      assertThat(s.breaker(0).isOpen()).as("round %d", round).isFalse();
    }
  }

  @Test
  void eachOpenAndCloseIsOneEvent() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failTimes(PUT, Kind.UNAVAILABLE, 2);
    write(s, 1);
    ticker.advance(COOLDOWN);
    write(s, 2); // fails again: re-opened, not a new transition
    ticker.advance(COOLDOWN);
    write(s, 3); // answers: closed
    write(s, 4);
    assertThat(events).containsExactly("0:" + Transition.OPENED, "0:" + Transition.CLOSED);
  }

  @Test
  void aRestartClosesEveryBreaker() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failTimes(PUT, Kind.UNAVAILABLE, 1);
    write(s, 1);
    assertThat(s.breaker(0).isOpen()).isTrue();
    ClaimStores restarted = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    assertThat(restarted.breaker(0).isOpen()).isFalse();
    assertThat(write(restarted, 2)).isZero();
  }

  @Test
  void throttlingNeverOpensTheBreaker() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failAlways(PUT, Kind.THROTTLED);
    mem.get(0).failAlways(GET, Kind.THROTTLED);
    assertThat(write(s, 1)).isEqualTo(1);
    assertThat(read(s, 1).store()).isEqualTo(1);
    assertThat(s.breaker(0).isOpen()).isFalse();
    assertThat(write(s, 2)).isEqualTo(1);
    assertThat(mem.get(0).count(PUT)).isEqualTo(2); // still tried first: not skipped
  }

  // ---- Reads ----

  @Test
  void readSearchesConfiguredLayoutThenTheOther() {
    ClaimStores flat = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(1).putIfAbsent(KeyLayout.SHARDED.key(TENANT, 42), PACK, OP).join();
    ClaimStores.Located found = read(flat, 42);
    assertThat(found.store()).isEqualTo(1);
    assertThat(found.key()).isEqualTo(KeyLayout.SHARDED.key(TENANT, 42));
    assertThat(mem.get(0).count(GET)).isEqualTo(2); // flat, then sharded
    assertThat(mem.get(1).count(GET)).isEqualTo(2);
  }

  @Test
  void packWrittenBeforeLayoutChangedIsFound() {
    ClaimStores before = stores(2, Placement.HASH, KeyLayout.FLAT);
    int landed = write(before, 123);
    ClaimStores after = stores(2, Placement.HASH, KeyLayout.SHARDED);
    ClaimStores.Located found = read(after, 123);
    assertThat(found.store()).isEqualTo(landed);
    assertThat(found.key()).isEqualTo(flat(123));
  }

  @Test
  void packWrittenBeforePlacementChangedIsFound() {
    ClaimStores before = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    write(before, 5); // store 0; hash home would be 2
    ClaimStores after = stores(3, Placement.HASH, KeyLayout.FLAT);
    assertThat(read(after, 5).store()).isZero();
  }

  @Test
  void hungStoreCostsOneReadItsTimeoutOnce() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(1).putIfAbsent(flat(7), PACK, OP).join();
    mem.get(0).hang(GET);
    long t0 = ticker.read();
    assertThat(read(s, 7).store()).isEqualTo(1);
    assertThat(Duration.ofNanos(ticker.read() - t0)).isEqualTo(OP); // one timeout, not two
    assertThat(mem.get(0).count(GET)).isEqualTo(1);
    long t1 = ticker.read();
    for (int i = 0; i < 5; i++) {
      assertThat(read(s, 7).store()).isEqualTo(1);
    }
    assertThat(ticker.read()).isEqualTo(t1); // later reads ask the healthy store first
    assertThat(mem.get(0).count(GET)).isEqualTo(1);
    mem.get(0).clearFaults();
    ticker.advance(COOLDOWN);
    assertThat(read(s, 7).store()).isEqualTo(1);
    assertThat(s.breaker(0).isOpen()).isFalse(); // its "not found" answer closed it
  }

  @Test
  void storeThatCouldNotAnswerIsAskedOncePerRead() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failAlways(GET, Kind.UNAVAILABLE);
    failure(s.read(TENANT, 3, 0, 1, s.writeDeadline()));
    assertThat(mem.get(0).count(GET)).isEqualTo(1);
    assertThat(mem.get(1).count(GET)).isEqualTo(2);
  }

  @Test
  void throttlingStoreIsAskedOncePerRead() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failAlways(GET, Kind.THROTTLED);
    assertThat(failure(s.read(TENANT, 3, 0, 1, s.writeDeadline())).kind())
        .isEqualTo(Kind.THROTTLED);
    assertThat(mem.get(0).count(GET)).isEqualTo(1);
  }

  @Test
  void forbiddenStoreIsAskedAtBothLayouts() {
    ClaimStores s = stores(1, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failTimes(GET, Kind.FORBIDDEN, 1); // e.g. a flaky policy on the first key
    mem.get(0).putIfAbsent(KeyLayout.SHARDED.key(TENANT, 8), PACK, OP).join();
    assertThat(read(s, 8).bytes()).isEqualTo(PACK);
    assertThat(mem.get(0).count(GET)).isEqualTo(2);
  }

  @Test
  void notFoundOnlyWhenEveryStoreAnswered() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(2).hang(GET);
    StoreException e = failure(s.read(TENANT, 11, 0, 1, readDeadline()));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e.getMessage()).contains("faulty:s2");
  }

  @Test
  void missingEverywhereIsNotFound() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    StoreException e = failure(s.read(TENANT, 11, 0, 1, readDeadline()));
    assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND);
    for (MemoryStore m : mem) {
      assertThat(m.count(GET)).isEqualTo(2);
    }
  }

  @Test
  void forbiddenIsReportedWhenNoStoreHasIt() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(1).failAlways(GET, Kind.FORBIDDEN);
    mem.get(0).failTimes(GET, Kind.UNAVAILABLE, 0);
    assertThat(failure(s.read(TENANT, 11, 0, 1, readDeadline())).kind()).isEqualTo(Kind.FORBIDDEN);
  }

  @Test
  void addingAStoreKeepsOldPacksReadable() {
    ClaimStores two = stores(2, Placement.HASH, KeyLayout.SHARDED);
    List<Long> ids = new ArrayList<>();
    for (long id = 100; id < 140; id++) {
      write(two, id);
      ids.add(id);
    }
    ClaimStores three = stores(3, Placement.HASH, KeyLayout.SHARDED);
    for (long id : ids) {
      assertThat(read(three, id).bytes()).isEqualTo(PACK);
    }
  }

  @Test
  void storeIndexPastTheListIsNotFound() {
    ClaimStores s = stores(2, Placement.ORDERED, KeyLayout.FLAT);
    assertThat(failure(s.getRange(2, flat(1), 0, 1, s.writeDeadline())).kind())
        .isEqualTo(Kind.NOT_FOUND);
  }

  // ---- Write ----

  @Test
  void collisionEndsTheWriteAtOnce() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    write(s, 1);
    assertThat(
            failure(s.write(TENANT, 1, "other".getBytes(StandardCharsets.UTF_8), s.writeDeadline()))
                .kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(mem.get(0).object(flat(1))).isEqualTo(PACK); // never overwritten
    assertThat(mem.get(1).count(PUT)).isZero(); // no failover on a collision
  }

  @Test
  void everyAttemptFailedListsEachReasonInAttemptOrder() {
    ClaimStores s = stores(3, Placement.HASH, KeyLayout.FLAT);
    mem.get(0).failAlways(PUT, Kind.FORBIDDEN);
    mem.get(1).failAlways(PUT, Kind.THROTTLED);
    mem.get(2).failAlways(PUT, Kind.UNAVAILABLE);
    StoreException e = failure(s.write(TENANT, 1, PACK, s.writeDeadline())); // home 1
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    String m = e.getMessage();
    assertThat(m.indexOf("store 1 (faulty:s1) THROTTLED"))
        .isNotNegative()
        .isLessThan(m.indexOf("store 2 (faulty:s2) UNAVAILABLE"));
    assertThat(m.indexOf("store 2")).isLessThan(m.indexOf("store 0 (faulty:s0) FORBIDDEN"));
    assertThat(mem.get(1).count(PUT)).as("a 403 in the round: not retried").isEqualTo(1);
  }

  @Test
  void singleAttemptFailureIsUnavailable() {
    ClaimStores s = stores(1, Placement.ORDERED, KeyLayout.FLAT);
    mem.get(0).failAlways(PUT, Kind.FORBIDDEN);
    StoreException e = failure(s.write(TENANT, 1, PACK, s.writeDeadline()));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e.getMessage()).contains("FORBIDDEN");
    // A store that keeps throttling is retried to the deadline, then fails the same way:
    // WriteRetryTest#aStoreThrottlingPastTheDeadlineFailsAtTheDeadlineNotLater.
  }

  @Test
  void writeDeadlineIsTheLargestOpDeadline() {
    MemoryStore a = MemoryStores.create("a", ticker.hangClock());
    MemoryStore b = MemoryStores.create("b", ticker.hangClock());
    ClaimStores s =
        ClaimStores.builder()
            .ticker(ticker)
            .add(a, Duration.ofSeconds(1))
            .add(b, Duration.ofSeconds(5))
            .build();
    assertThat(s.writeDeadline() - ticker.read()).isEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void writeDeadlineCoversEveryStoreTried() {
    ClaimStores s = stores(3, Placement.ORDERED, KeyLayout.FLAT);
    for (MemoryStore m : mem) {
      m.hang(PUT);
    }
    long t0 = ticker.read();
    StoreException e = failure(s.write(TENANT, 1, PACK, t0 + Duration.ofMillis(3000).toNanos()));
    // store 0 spends its 2 s op deadline, store 1 the remaining 1 s, store 2 is not tried.
    assertThat(ticker.read() - t0).isEqualTo(Duration.ofMillis(3000).toNanos());
    assertThat(mem.get(2).count(PUT)).isZero();
    assertThat(e.getMessage()).contains("store 2 (faulty:s2) UNAVAILABLE: not tried");
  }

  @Test
  void aHungFirstStoreWithASmallerDeadlineLeavesTheWriteTimeForTheNext() {
    MemoryStore a = MemoryStores.create("a", ticker.hangClock());
    MemoryStore b = MemoryStores.create("b", ticker.hangClock());
    ClaimStores s =
        ClaimStores.builder()
            .ticker(ticker)
            .add(a, Duration.ofSeconds(3))
            .add(b, Duration.ofSeconds(10))
            .build();
    a.hang(PUT);
    long t0 = ticker.read();
    assertThat(write(s, 7)).isEqualTo(1);
    // store 0 spent its own 3 s; store 1 took the pack inside the 10 s write deadline.
    assertThat(ticker.read() - t0).isEqualTo(Duration.ofSeconds(3).toNanos());
    assertThat(b.count(PUT)).isEqualTo(1);
  }

  @Test
  void breakerRejectsNegativeCooldown() {
    assertThatThrownBy(
            () ->
                ClaimStores.builder()
                    .cooldown(Duration.ofSeconds(-1))
                    .add(MemoryStores.create("x", ticker.hangClock()), OP)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cooldown");
  }
}
