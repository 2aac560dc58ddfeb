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
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A final answer only when a second look agrees, nothing bad cached, Errors passed through, and key
 * packs checked to be ours: an engine over scripted fake stores and the real reader, on a driven
 * clock (the fakes answer at once, so no timer ever needs to fire).
 */
class SecondLookTest {

  private final FakeTicker ticker = new FakeTicker();
  private final ScriptedStore home = new ScriptedStore("home");
  private final ScriptedStore other = new ScriptedStore("other");
  private SharedClaimCheck engine;

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  /** An engine over {@code stores} (tenant acme), with a real reader whose timers never fire. */
  private SharedClaimCheck engine(ClaimStore... stores) {
    ClaimStores.Builder b = ClaimStores.builder().ticker(ticker);
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

  private long deadline() {
    return ticker.read() + Duration.ofSeconds(5).toNanos();
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static ClaimCheckFailure failureOf(CompletableFuture<byte[]> f) {
    try {
      f.get();
    } catch (ExecutionException e) {
      return (ClaimCheckFailure) e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void aCorruptAnswerThenAGoodOneRedeemsTheValue() throws Exception {
    SharedClaimCheck cc = engine(home);
    byte[] value = random(5000, 1);
    ClaimRef ref = cc.checkIn(value);
    home.script(ScriptedStore::corrupt);
    assertThat(cc.redeem(ref, deadline()).get()).isEqualTo(value);
    assertThat(home.gets.get()).isEqualTo(2);
  }

  @Test
  void twoCorruptAnswersAreCorrupt() {
    SharedClaimCheck cc = engine(home);
    ClaimRef ref = cc.checkIn(random(5000, 2));
    home.script(ScriptedStore::corrupt, ScriptedStore::corrupt);
    ClaimCheckFailure f = failureOf(cc.redeem(ref, deadline()));
    assertThat(f.reason()).isEqualTo(Reason.CORRUPT);
    assertThat(f.getMessage()).contains("read twice");
    assertThat(home.gets.get()).isEqualTo(2);
  }

  @Test
  void aCorruptClaimRestoredLaterIsRedeemedNothingBadWasCached() throws Exception {
    SharedClaimCheck cc = engine(home);
    byte[] value = random(5000, 3);
    ClaimRef ref = cc.checkIn(value);
    home.script(ScriptedStore::corrupt, ScriptedStore::corrupt);
    assertThat(failureOf(cc.redeem(ref, deadline())).reason()).isEqualTo(Reason.CORRUPT);
    // The object is restored: the next redeem asks the store again and gets the value.
    assertThat(cc.redeem(ref, deadline()).get()).isEqualTo(value);
    assertThat(home.gets.get()).isEqualTo(3);
    // And the good answer was cached: the next redeem is a cache hit.
    assertThat(cc.redeem(ref, deadline()).get()).isEqualTo(value);
    assertThat(home.gets.get()).isEqualTo(3);
  }

  @Test
  void aShortAnswerIsAlsoLookedAtTwice() throws Exception {
    SharedClaimCheck cc = engine(home);
    byte[] value = random(5000, 4);
    ClaimRef ref = cc.checkIn(value);
    home.script(b -> Arrays.copyOf(b, b.length - 1));
    assertThat(cc.redeem(ref, deadline()).get()).isEqualTo(value);
  }

  @Test
  void notFoundThenFoundRedeemsTheValue() throws Exception {
    SharedClaimCheck cc = engine(home);
    byte[] value = random(5000, 5);
    ClaimRef ref = cc.checkIn(value);
    home.script(ScriptedStore.fail(Kind.NOT_FOUND));
    assertThat(cc.redeem(ref, deadline()).get()).isEqualTo(value);
    assertThat(home.gets.get()).isEqualTo(2 + 1); // first search: both layouts; second: found
  }

  @Test
  void notFoundTwiceIsNotFound() {
    SharedClaimCheck cc = engine(home, other);
    ClaimRef ref = cc.checkIn(random(5000, 6));
    home.objects.clear();
    ClaimCheckFailure f = failureOf(cc.redeem(ref, deadline()));
    assertThat(f.reason()).isEqualTo(Reason.NOT_FOUND);
    assertThat(f.getMessage()).contains("asked twice");
    assertThat(home.gets.get()).isEqualTo(4); // two searches, each at both layouts
    assertThat(other.gets.get()).isEqualTo(4);
  }

  @Test
  void notFoundThenNoAnswerIsUnavailable() {
    SharedClaimCheck cc = engine(home);
    ClaimRef ref = cc.checkIn(random(5000, 7));
    home.objects.clear();
    home.script(
        ScriptedStore.fail(Kind.NOT_FOUND),
        ScriptedStore.fail(Kind.NOT_FOUND),
        ScriptedStore.fail(Kind.UNAVAILABLE));
    assertThat(failureOf(cc.redeem(ref, deadline())).reason()).isEqualTo(Reason.UNAVAILABLE);
  }

  @Test
  void corruptThenGoneIsUnavailable() {
    SharedClaimCheck cc = engine(home);
    ClaimRef ref = cc.checkIn(random(5000, 8));
    home.script(
        ScriptedStore::corrupt,
        ScriptedStore.fail(Kind.NOT_FOUND),
        ScriptedStore.fail(Kind.NOT_FOUND));
    assertThat(failureOf(cc.redeem(ref, deadline())).reason()).isEqualTo(Reason.UNAVAILABLE);
  }

  @Test
  void noTimeLeftForTheSecondLookIsUnavailable() {
    SharedClaimCheck cc = engine(home);
    ClaimRef ref = cc.checkIn(random(5000, 9));
    // The store spends the caller's whole deadline on the first (corrupt) answer.
    home.script(
        b -> {
          ticker.advance(Duration.ofSeconds(6));
          return ScriptedStore.corrupt(b);
        });
    ClaimCheckFailure f = failureOf(cc.redeem(ref, deadline()));
    assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
    assertThat(home.gets.get()).isEqualTo(1);
  }

  @Test
  void anErrorInARedeemReachesTheCallerAsItself() {
    SharedClaimCheck cc = engine(home, other);
    ClaimRef ref = cc.checkIn(random(5000, 10));
    home.script(
        b -> {
          throw new OutOfMemoryError("planted");
        });
    assertThatThrownBy(() -> cc.redeemBlocking(ref, deadline()))
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("planted");
    assertThat(other.gets.get()).isZero(); // not a store failure: no failover to the next store
    assertThat(cc.redeemBlocking(ref, deadline())).isEqualTo(random(5000, 10));
  }

  @Test
  void anErrorInACheckInReachesTheCallerAsItself() {
    SharedClaimCheck cc = engine(home, other);
    home.putError = new StackOverflowError("planted");
    assertThatThrownBy(() -> cc.checkIn(random(100, 11)))
        .isInstanceOf(StackOverflowError.class)
        .hasMessage("planted");
    assertThat(other.objects).isEmpty(); // not a store failure: no failover
  }

  @Test
  void anInterruptedBlockingRedeemIsUnavailableKeepsTheFlagAndReleasesItsPermit() {
    SharedClaimCheck cc = engine(home);
    ClaimRef ref = cc.checkIn(random(5000, 12));
    home.hang = true;
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> cc.redeemBlocking(ref, deadline()))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE))
          .hasMessageContaining("interrupted");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(cc.reader().admitted()).isZero();
  }

  @Test
  void aKeyPackAlreadyStoredWithOurBytesGivesItsRef() {
    SharedClaimCheck cc = engine(home);
    byte[] key = random(700, 13);
    ClaimRef first = cc.checkInKey(key);
    assertThat(cc.checkInKey(key.clone())).isEqualTo(first);
    assertThat(home.gets.get()).isEqualTo(1); // the read-back of the second check-in
  }

  @Test
  void aKeyPackAlreadyStoredWithOtherBytesFailsTheCheckIn() {
    SharedClaimCheck cc = engine(home);
    byte[] key = random(700, 14);
    ClaimRef first = cc.checkInKey(key);
    String object = KeyLayout.FLAT.key("acme", PackId.fromContent(Tenant.of("acme"), key).value());
    assertThat(first.packId()).isEqualTo(PackId.fromContent(Tenant.of("acme"), key));
    home.objects.computeIfPresent(object, (k, b) -> ScriptedStore.corrupt(b));
    assertThatThrownBy(() -> cc.checkInKey(key))
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.CORRUPT))
        .hasMessageContaining("not ours");
  }

  @Test
  void aKeyPackWhoseReadBackGetsNoAnswerIsUnavailable() {
    SharedClaimCheck cc = engine(home);
    byte[] key = random(700, 15);
    cc.checkInKey(key);
    home.script(ScriptedStore.fail(Kind.UNAVAILABLE));
    assertThatThrownBy(() -> cc.checkInKey(key))
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE));
  }

  /**
   * A store whose reads can be scripted: each scripted step rewrites (or fails) one answer, in
   * order; thread-safe enough for these single-threaded tests.
   */
  static final class ScriptedStore implements ClaimStore {
    final String name;
    final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    final Deque<Function<byte[], byte[]>> steps = new ArrayDeque<>();
    final AtomicInteger gets = new AtomicInteger();
    volatile Error putError;
    volatile boolean hang;

    ScriptedStore(String name) {
      this.name = name;
    }

    @SafeVarargs
    final void script(Function<byte[], byte[]>... next) {
      steps.addAll(Arrays.asList(next));
    }

    static byte[] corrupt(byte[] b) {
      byte[] c = b.clone();
      c[c.length / 2] ^= 0x5a;
      return c;
    }

    static Function<byte[], byte[]> fail(Kind kind) {
      return b -> {
        throw new StoreException(kind, "scripted " + kind);
      };
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
      if (putError != null) {
        return CompletableFuture.failedFuture(putError);
      }
      return objects.putIfAbsent(key, bytes.clone()) == null
          ? CompletableFuture.completedFuture(null)
          : CompletableFuture.failedFuture(new StoreException(Kind.ALREADY_EXISTS, key));
    }

    @Override
    public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
      objects.put(key, bytes.clone());
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration t) {
      gets.incrementAndGet();
      if (hang) {
        return new CompletableFuture<>();
      }
      byte[] object = objects.get(key);
      Function<byte[], byte[]> step = steps.poll();
      try {
        if (object == null && step == null) {
          throw new StoreException(Kind.NOT_FOUND, name + " has no " + key);
        }
        byte[] range =
            object == null
                ? new byte[0]
                : Arrays.copyOfRange(
                    object,
                    (int) Math.min(offset, object.length),
                    (int) Math.min(offset + length, object.length));
        return CompletableFuture.completedFuture(step == null ? range : step.apply(range));
      } catch (RuntimeException | Error e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    /** Not scripted: the object as stored, written at the epoch. */
    @Override
    public CompletableFuture<io.ankusa.claimcheck.store.ClaimStore.StoredObject> stat(
        String key, Duration t) {
      byte[] object = objects.get(key);
      return object == null
          ? CompletableFuture.failedFuture(
              new StoreException(Kind.NOT_FOUND, name + " has no " + key))
          : CompletableFuture.completedFuture(
              new io.ankusa.claimcheck.store.ClaimStore.StoredObject(
                  key, object.length, java.time.Instant.EPOCH));
    }

    @Override
    public CompletableFuture<Void> delete(String key, Duration timeout) {
      objects.remove(key);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public String describe() {
      return "scripted:" + name;
    }

    @Override
    public void close() {}
  }
}
