package io.ankusa.claimcheck.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.SweepLock;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A key pack reused while a sweep runs is never lost: the sweep (listing, lock, confirm, delete,
 * unlock) over a memory store whose every step can run the writer's reuse (rewrite, then settle) at
 * that exact point, on a driven ticker and a hand-run scheduler; and the lock's own rules.
 */
class SweepLockTest {

  private static final String TENANT = "acme";
  private static final Instant FIRST = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant T0 = FIRST.plus(Duration.ofHours(3));
  private static final Instant NOW = T0.plus(Duration.ofMinutes(1));
  private static final Duration T = Duration.ofSeconds(5);

  private final FakeTicker ticker = new FakeTicker();
  private final MemoryStore inner = MemoryStores.create("sweep-lock", ticker.hangClock());
  private final Queue<Runnable> timers = new ArrayDeque<>();
  private final ClaimStores writer = writerOver(inner);
  private final byte[] keyPack = "the key pack".getBytes(StandardCharsets.UTF_8);
  private final long reused = PackId.fromContent(Tenant.of(TENANT), keyPack).value();
  private final String reusedKey = KeyLayout.FLAT.key(TENANT, reused);
  private final String garbageKey = KeyLayout.FLAT.key(TENANT, 0x1234_5678_9abc_def0L);

  /** Where in the sweep the writer's reuse lands. */
  enum At {
    BEFORE_LISTING,
    BEFORE_LOCK,
    AFTER_LOCK,
    BEFORE_DELETE,
    AFTER_DELETE,
    AFTER_UNLOCK
  }

  @Test
  void aReuseBeforeTheListingKeepsThePack() {
    assertKeptWhenReusedAt(At.BEFORE_LISTING);
  }

  @Test
  void aReuseBetweenTheListingAndTheLockKeepsThePack() {
    assertKeptWhenReusedAt(At.BEFORE_LOCK);
  }

  @Test
  void aReuseBetweenTheLockAndTheConfirmationKeepsThePack() {
    assertKeptWhenReusedAt(At.AFTER_LOCK);
  }

  @Test
  void aReuseBetweenTheConfirmationAndTheDeleteKeepsThePack() {
    assertKeptWhenReusedAt(At.BEFORE_DELETE);
  }

  @Test
  void aReuseDuringTheDeleteKeepsThePack() {
    assertKeptWhenReusedAt(At.AFTER_DELETE);
  }

  @Test
  void aReuseAfterTheUnlockKeepsThePack() {
    assertKeptWhenReusedAt(At.AFTER_UNLOCK);
  }

  @Test
  void aStaleLockIsTakenOver() {
    storeOld();
    inner.wallClock(Clock.fixed(NOW.minus(SweepLock.LEASE).minusSeconds(1), ZoneOffset.UTC));
    inner.putIfAbsent(SweepLock.key(TENANT), new byte[1], T).join();
    inner.wallClock(Clock.fixed(NOW, ZoneOffset.UTC));

    Sweeper sweeper = sweep(inner);

    assertThat(sweeper.failures()).isEmpty();
    assertThat(inner.keys()).doesNotContain(garbageKey, reusedKey, SweepLock.key(TENANT));
    assertThat(sweeper.deleted()).hasSize(2);
  }

  @Test
  void ofTwoCollectionsTakingOverOneStaleLockOnlyTheFirstSweeps() {
    storeOld();
    inner.wallClock(Clock.fixed(NOW.minus(SweepLock.LEASE).minusSeconds(1), ZoneOffset.UTC));
    inner.putIfAbsent(SweepLock.key(TENANT), new byte[1], T).join();
    inner.wallClock(Clock.fixed(NOW, ZoneOffset.UTC));
    Hooked store = new Hooked(inner, At.AFTER_UNLOCK); // fires on our delete of the stale lock
    byte[] theirs = "the other collection".getBytes(StandardCharsets.UTF_8);
    store.onHook = () -> inner.putIfAbsent(SweepLock.key(TENANT), theirs, T).join();

    Sweeper sweeper = sweep(store);

    assertThat(sweeper.deleted()).isEmpty();
    assertThat(sweeper.failures())
        .singleElement()
        .asString()
        .contains("taken over by another collection first");
    assertThat(inner.keys()).contains(garbageKey, reusedKey, SweepLock.key(TENANT));
    assertThat(inner.getRange(SweepLock.key(TENANT), 0, theirs.length, T).join())
        .as("the winner's lock is left alone")
        .isEqualTo(theirs);
  }

  @Test
  void aLockAnotherCollectionHoldsStopsTheSweep() {
    storeOld();
    inner.wallClock(Clock.fixed(NOW.minusSeconds(30), ZoneOffset.UTC));
    inner.putIfAbsent(SweepLock.key(TENANT), new byte[1], T).join();
    inner.wallClock(Clock.fixed(NOW, ZoneOffset.UTC));

    Sweeper sweeper = sweep(inner);

    assertThat(sweeper.deleted()).isEmpty();
    assertThat(sweeper.failures())
        .singleElement()
        .asString()
        .contains("another collection of tenant acme is sweeping");
    assertThat(inner.keys()).contains(garbageKey, reusedKey, SweepLock.key(TENANT));
  }

  @Test
  void aStoreThatCannotStatIsNotSwept() {
    storeOld();
    Sweeper sweeper = sweep(new NoStat(inner));

    assertThat(sweeper.deleted()).isEmpty();
    assertThat(sweeper.failures()).singleElement().asString().contains("cannot stat");
    assertThat(inner.keys()).contains(garbageKey, reusedKey).doesNotContain(SweepLock.key(TENANT));
  }

  @Test
  void aWriterThatMeetsAHeldLockUntilItsDeadlineFailsRetriably() {
    storeOld();
    inner.putIfAbsent(SweepLock.key(TENANT), new byte[1], T).join(); // held, never removed
    long deadline = ticker.read() + Duration.ofSeconds(2).toNanos();
    CompletableFuture<Void> settled = reuse(deadline);
    while (!timers.isEmpty()) {
      timers.poll().run();
    }
    assertThat(settled).isCompletedExceptionally();
    StoreException e = (StoreException) catchCause(settled);
    assertThat(e.kind()).isEqualTo(StoreException.Kind.UNAVAILABLE);
    assertThat(e.getMessage()).contains("sweep lock");
  }

  @Test
  void aWriterWhoseLockLookupFailsOnceTriesAgainInsteadOfFailingTheCheckIn() {
    storeOld();
    int[] failuresLeft = {1};
    ClaimStore flaky =
        new Hooked(inner, null) {
          @Override
          public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
            if (key.equals(SweepLock.key(TENANT)) && failuresLeft[0]-- > 0) {
              return CompletableFuture.failedFuture(
                  new StoreException(
                      StoreException.Kind.UNAVAILABLE,
                      "could not answer: the connection was closed during the request"));
            }
            return super.stat(key, timeout);
          }
        };
    ClaimStores flakyWriter = writerOver(flaky);
    long deadline = ticker.read() + T.toNanos();
    CompletableFuture<Void> settled =
        flakyWriter
            .rewrite(TENANT, reused, keyPack, deadline)
            .thenCompose(s -> flakyWriter.settle(s, TENANT, reused, keyPack, deadline));
    while (!timers.isEmpty()) {
      timers.poll().run();
    }
    settled.join();
    assertThat(failuresLeft[0]).as("the failing lookup was made").isNegative();
    assertThat(inner.keys()).contains(reusedKey);
  }

  @Test
  void aWriterIgnoresAStaleLock() {
    storeOld();
    inner.wallClock(Clock.fixed(NOW.minus(SweepLock.LEASE), ZoneOffset.UTC));
    inner.putIfAbsent(SweepLock.key(TENANT), new byte[1], T).join();
    inner.wallClock(Clock.fixed(NOW, ZoneOffset.UTC));
    CompletableFuture<Void> settled = reuse(ticker.read() + T.toNanos());
    assertThat(settled).isCompleted();
    assertThat(timers).isEmpty();
    settled.join();
  }

  // --- the interleavings

  private void assertKeptWhenReusedAt(At at) {
    storeOld();
    Hooked store = new Hooked(inner, at);
    CompletableFuture<Void>[] reuse = new CompletableFuture[1];
    store.onHook = () -> reuse[0] = reuse(ticker.read() + T.toNanos());
    if (at == At.BEFORE_LISTING) {
      store.onHook.run();
    }

    Sweeper sweeper = sweep(store);
    while (!timers.isEmpty()) {
      timers.poll().run(); // the writer's waits for the lock, after the sweep
    }

    assertThat(reuse[0]).as("the reuse ran at " + at).isNotNull();
    reuse[0].join();
    assertThat(sweeper.failures()).isEmpty();
    assertThat(inner.keys())
        .as("the garbage is collected, the reused pack is kept")
        .contains(reusedKey)
        .doesNotContain(garbageKey, SweepLock.key(TENANT));
    assertThat(
            writer
                .read(TENANT, reused, 0, keyPack.length, ticker.read() + T.toNanos())
                .join()
                .bytes())
        .as("the reused ref redeems")
        .isEqualTo(keyPack);
  }

  /** The reused pack and a garbage pack, both written long before the run. */
  private void storeOld() {
    inner.wallClock(Clock.fixed(FIRST, ZoneOffset.UTC));
    inner.putIfAbsent(reusedKey, keyPack, T).join();
    inner.putIfAbsent(garbageKey, new byte[] {1, 2, 3}, T).join();
    inner.wallClock(Clock.fixed(NOW, ZoneOffset.UTC)); // every write during the run is now
  }

  /** The writer's reuse: the rewrite, then the settle in the store that took it. */
  /** The writer's store set over {@code store}: the driven ticker, timers run by the test. */
  private ClaimStores writerOver(ClaimStore store) {
    return ClaimStores.builder()
        .ticker(ticker)
        .clock(Clock.fixed(NOW, ZoneOffset.UTC))
        .scheduler(
            (task, delay) -> {
              timers.add(
                  () -> {
                    ticker.advance(Duration.ofNanos(delay));
                    task.run();
                  });
              return () -> {};
            })
        .add(store, T)
        .build();
  }

  private CompletableFuture<Void> reuse(long deadline) {
    return writer
        .rewrite(TENANT, reused, keyPack, deadline)
        .thenCompose(s -> writer.settle(s, TENANT, reused, keyPack, deadline));
  }

  /** Lists the tenant's packs in {@code store}, picks the deletable ones and sweeps them. */
  private Sweeper sweep(ClaimStore store) {
    GcOptions o =
        new GcOptions(
            TENANT,
            Pattern.compile(".*"),
            Duration.ZERO,
            true,
            true,
            1,
            1000,
            Long.MAX_VALUE,
            Duration.ofSeconds(30),
            T);
    List<StoredPack> deletable =
        PackListing.list(store, 0, TENANT, T).packs().stream()
            .filter(p -> p.lastModified().plusSeconds(1).isBefore(T0))
            .toList();
    Sweeper sweeper =
        new Sweeper(
            List.of(store),
            o,
            new Progress() {},
            T0,
            Duration.ofSeconds(1),
            Clock.fixed(NOW, ZoneOffset.UTC),
            ticker);
    sweeper.sweep(deletable);
    return sweeper;
  }

  private static Throwable catchCause(CompletableFuture<?> f) {
    try {
      f.join();
      throw new AssertionError("completed normally");
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  /** The sweeper's view of the store: runs {@link #onHook} at one point of the sweep. */
  private static class Hooked implements ClaimStore {
    final ClaimStore inner;
    final At at;
    Runnable onHook = () -> {};
    boolean fired;

    Hooked(ClaimStore inner, At at) {
      this.inner = inner;
      this.at = at;
    }

    private void hook(At here) {
      if (here == at && !fired) {
        fired = true;
        onHook.run();
      }
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
      hook(At.BEFORE_LOCK);
      CompletableFuture<Void> f = inner.putIfAbsent(key, bytes, timeout);
      f.handle((v, e) -> null).join(); // done, either way: the caller sees its outcome
      hook(At.AFTER_LOCK);
      return f;
    }

    @Override
    public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
      return inner.put(key, bytes, timeout);
    }

    @Override
    public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
      return inner.stat(key, timeout);
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration t) {
      return inner.getRange(key, offset, length, t);
    }

    @Override
    public CompletableFuture<Void> deleteAll(List<String> keys, Duration timeout) {
      hook(At.BEFORE_DELETE);
      CompletableFuture<Void> f = inner.deleteAll(keys, timeout);
      f.join();
      hook(At.AFTER_DELETE);
      return f;
    }

    @Override
    public CompletableFuture<Void> delete(String key, Duration timeout) {
      CompletableFuture<Void> f = inner.delete(key, timeout);
      f.join();
      if (key.equals(SweepLock.key(TENANT))) {
        hook(At.AFTER_UNLOCK);
      }
      return f;
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String continuation, Duration t) {
      return inner.list(prefix, continuation, t);
    }

    @Override
    public String describe() {
      return "hooked:" + inner.describe();
    }

    @Override
    public void close() {}
  }

  /** A plug-in store without {@link ClaimStore#stat}: answers as the SPI's default does. */
  private static final class NoStat extends Hooked {
    NoStat(ClaimStore inner) {
      super(inner, null);
    }

    @Override
    public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
      return CompletableFuture.failedFuture(
          new StoreException(
              StoreException.Kind.UNAVAILABLE,
              describe() + " cannot stat an object (ClaimStore.stat is not implemented)"));
    }
  }
}
