package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.Runtimes;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A key re-sent later names its content-addressed pack again, and the stores must then list that
 * pack as written now, or a collection that started before takes it for an old unreferenced pack:
 * an engine over fake stores whose wall clock the test sets, on a driven ticker.
 */
class ReusedKeyPackTest {

  private static final Instant FIRST = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant LATER = FIRST.plus(Duration.ofHours(3));

  private final FakeTicker ticker = new FakeTicker();
  private final MemoryStore home = MemoryStores.create("home", ticker.hangClock());
  private final MemoryStore other = MemoryStores.create("other", ticker.hangClock());
  private SharedClaimCheck engine;
  private volatile Runnable onWait; // runs (once) at the writer's next wait, before it ends

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void aReusedKeyPackIsListedAsWrittenWhenItIsReused() {
    SharedClaimCheck cc = engine(home);
    byte[] key = "customer-4711".getBytes(StandardCharsets.UTF_8);
    at(FIRST, home);
    ClaimRef first = cc.checkInKey(key);
    assertThat(listed(home, first)).isEqualTo(FIRST);

    at(LATER, home);
    ClaimRef again = cc.checkInKey(key.clone());

    assertThat(again).isEqualTo(first);
    assertThat(listed(home, first))
        .as("the collector judges the reused pack by this time")
        .isEqualTo(LATER);
    assertThat(home.keys()).hasSize(1);
    assertThat(redeem(cc, again)).isEqualTo(key);
  }

  @Test
  void aReusedKeyPackThatItsStoreCannotRewriteIsRewrittenInTheNextStore() {
    ClaimStore cannotRewrite = new NoRewrite(home);
    SharedClaimCheck cc = engine(cannotRewrite, other);
    byte[] key = "order-1".getBytes(StandardCharsets.UTF_8);
    at(FIRST, home, other);
    ClaimRef first = cc.checkInKey(key);
    assertThat(other.keys()).isEmpty();

    at(LATER, home, other);
    ClaimRef again = cc.checkInKey(key.clone());

    assertThat(again).isEqualTo(first);
    assertThat(listed(other, first)).as("a fresh copy where the rewrite landed").isEqualTo(LATER);
    assertThat(listed(home, first)).isEqualTo(FIRST);
    home.clearObjects(); // the old copy collected: the ref still redeems from the fresh one
    assertThat(redeem(cc, again)).isEqualTo(key);
  }

  @Test
  void aReusedKeyPackThatNoStoreCanRewriteFailsTheCheckInRetriably() {
    SharedClaimCheck cc = engine(new NoRewrite(home));
    byte[] key = "order-2".getBytes(StandardCharsets.UTF_8);
    cc.checkInKey(key);
    assertThatThrownBy(() -> cc.checkInKey(key))
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE))
        .hasMessageContaining("already stored")
        .hasMessageContaining("cannot rewrite");
  }

  @Test
  void aKeyPackSweptRightAfterItsReadBackIsWrittenAgain() {
    SweptAfterReadBack swept = new SweptAfterReadBack(home);
    SharedClaimCheck cc = engine(swept);
    byte[] key = "order-3".getBytes(StandardCharsets.UTF_8);
    ClaimRef first = cc.checkInKey(key);
    swept.armed = true; // a collector's sweep deletes the pack just after the reuse saw it
    ClaimRef again = cc.checkInKey(key.clone());
    assertThat(again).isEqualTo(first);
    assertThat(swept.armed).as("the sweep ran").isFalse();
    assertThat(redeem(cc, again)).isEqualTo(key);
  }

  @Test
  void aReuseWhileASweepHoldsTheLockWritesThePackAgainAfterTheSweep() {
    SharedClaimCheck cc = engine(home);
    byte[] key = "order-4".getBytes(StandardCharsets.UTF_8);
    ClaimRef first = cc.checkInKey(key);
    String pack = KeyLayout.FLAT.key("acme", first.packId().value());
    String lock = io.ankusa.claimcheck.store.SweepLock.key("acme");
    home.putIfAbsent(lock, new byte[1], Duration.ofSeconds(1)).join(); // a sweep is deleting
    onWait =
        () -> { // while the check-in waits: the sweep deletes the pack, then unlocks
          home.delete(pack, Duration.ofSeconds(1)).join();
          home.delete(lock, Duration.ofSeconds(1)).join();
        };

    ClaimRef again = cc.checkInKey(key.clone());

    assertThat(onWait).as("the check-in waited for the lock").isNull();
    assertThat(again).isEqualTo(first);
    assertThat(home.keys()).containsExactly(pack);
    assertThat(redeem(cc, again)).isEqualTo(key);
  }

  // --- helpers

  private static void at(Instant now, MemoryStore... stores) {
    for (MemoryStore s : stores) {
      s.wallClock(Clock.fixed(now, ZoneOffset.UTC));
    }
  }

  private static Instant listed(MemoryStore store, ClaimRef ref) {
    String key = KeyLayout.FLAT.key("acme", ref.packId().value());
    for (StoredObject o : store.list("acme/", null, Duration.ofSeconds(1)).join().objects()) {
      if (o.key().equals(key)) {
        return o.lastModified();
      }
    }
    throw new AssertionError(key + " is not listed in " + store.describe());
  }

  private byte[] redeem(SharedClaimCheck cc, ClaimRef ref) {
    return cc.redeem(ref, ticker.read() + Duration.ofSeconds(5).toNanos()).join();
  }

  /**
   * An engine over {@code stores} (tenant acme), with a real reader whose timers never fire and a
   * writer whose backoffs advance the ticker.
   */
  private SharedClaimCheck engine(ClaimStore... stores) {
    ClaimStores.Builder b =
        ClaimStores.builder()
            .ticker(ticker)
            .scheduler(
                (task, delay) -> {
                  ticker.advance(Duration.ofNanos(delay)); // a write round's backoff, spent at once
                  Runnable waited = onWait;
                  onWait = null;
                  if (waited != null) {
                    waited.run();
                  }
                  task.run();
                  return () -> {};
                });
    for (ClaimStore s : stores) {
      b.add(s, Duration.ofSeconds(5));
    }
    ClaimStores set = b.build();
    ClaimReader reader =
        ClaimReaders.create(
            ReaderSettings.builder(set.size())
                .ticker(ticker)
                .maxConcurrentReads(4)
                .scheduler((task, delay) -> () -> {})
                .build());
    Runtimes.Runtime rt = Runtimes.ofParts(set, reader, ClaimCheckTelemetry.noop());
    ClaimCheckConfig config =
        new ClaimCheckConfig(
            Map.of(ClaimCheckConfig.STORES, "memory:unused", ClaimCheckConfig.TENANT, "acme"));
    engine = new SharedClaimCheck(config, rt, ticker);
    return engine;
  }

  /** A store that, once armed, deletes an object right after answering a read of it. */
  private static final class SweptAfterReadBack extends NoRewrite {
    volatile boolean armed;

    SweptAfterReadBack(ClaimStore inner) {
      super(inner);
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration t) {
      CompletableFuture<byte[]> read = super.getRange(key, offset, length, t);
      if (armed) {
        read.join();
        armed = false;
        inner.delete(key, t).join();
      }
      return read;
    }

    @Override
    public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
      return inner.put(key, bytes, timeout);
    }
  }

  /** A plug-in store that does not implement {@link ClaimStore#put}: it keeps the default. */
  private static class NoRewrite implements ClaimStore {
    final ClaimStore inner;

    NoRewrite(ClaimStore inner) {
      this.inner = inner;
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
      return inner.putIfAbsent(key, bytes, timeout);
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration t) {
      return inner.getRange(key, offset, length, t);
    }

    @Override
    public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
      return inner.stat(key, timeout);
    }

    @Override
    public CompletableFuture<Void> delete(String key, Duration timeout) {
      return inner.delete(key, timeout);
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String continuation, Duration t) {
      return inner.list(prefix, continuation, t);
    }

    @Override
    public String describe() {
      return "no-rewrite:" + inner.describe();
    }

    @Override
    public void close() {}
  }
}
