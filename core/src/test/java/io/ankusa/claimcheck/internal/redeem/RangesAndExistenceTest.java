package io.ankusa.claimcheck.internal.redeem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A range of an uncompressed claim is one store read of just its bytes; existence is a stat (no
 * claim byte read), {@code false} only when two stats agree the pack is gone.
 */
class RangesAndExistenceTest {

  private static final Tenant ACME = Tenant.of("acme");

  private final FakeTicker ticker = new FakeTicker();
  private final MemoryStore memory =
      MemoryStores.create("ranges-" + System.nanoTime(), ticker.hangClock());
  private final Counting store = new Counting(memory);
  private final Timers timers = new Timers();
  private ClaimStores stores;
  private ClaimReader reader;
  private Redeemer redeemer;
  private RangedRedeemer ranges;
  private Existence existence;

  @BeforeEach
  void open() {
    stores = ClaimStores.builder().ticker(ticker).add(store, Duration.ofSeconds(5)).build();
    open(ReaderSettings.DEFAULT_MAX_INFLIGHT, ReaderSettings.DEFAULT_QUEUE_MAX);
  }

  /** The reader (a store limit of {@code maxInflight}, {@code queueMax} queued) and its users. */
  private void open(int maxInflight, int queueMax) {
    if (reader != null) {
      reader.close();
    }
    reader =
        ClaimReaders.create(
            ReaderSettings.builder(stores.size())
                .ticker(ticker)
                .maxConcurrentReads(4)
                .maxInflight(maxInflight)
                .queueMax(queueMax)
                .cacheMaxBytes(1 << 20)
                .scheduler(timers)
                .build());
    Admission admission = new Admission(List.of(), 1 << 20);
    long search = Duration.ofSeconds(5).toNanos();
    redeemer = new Redeemer(stores, reader, ticker, search, admission);
    ranges = new RangedRedeemer(stores, reader, ticker, search, admission, redeemer);
    existence = new Existence(stores, reader, ticker, search, admission);
  }

  @AfterEach
  void close() {
    reader.close();
    stores.close();
  }

  private ClaimRef stored(byte[] value, Codec codec, long seed) {
    EncodedPack pack = Packs.encode(List.of(new PackEntryInput(value, codec)));
    PackId id = PackId.random(new Random(seed));
    stores.write(ACME.value(), id.value(), pack.bytes(), deadline()).join();
    return Packs.toRef(ACME, id, pack.entries().get(0), value.length);
  }

  private long deadline() {
    return ticker.read() + Duration.ofSeconds(5).toNanos();
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  private static Reason reasonOf(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return ((Failure) e.getCause()).reason();
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void aRangeOfAnUncompressedClaimReadsOnlyItsBytes() {
    byte[] value = random(100_000);
    ClaimRef ref = stored(value, Codec.NONE, 1);
    store.reset();

    byte[] part = ranges.redeemRange(ref, 40_000, 123, deadline()).join();

    assertThat(part).isEqualTo(java.util.Arrays.copyOfRange(value, 40_000, 40_123));
    assertThat(store.gets.get()).isEqualTo(1);
    assertThat(store.bytesRead.get()).isEqualTo(123);
  }

  @Test
  void aRangeThatIsTheWholeClaimIsVerified() {
    ClaimRef good = stored(random(5000), Codec.NONE, 2);
    ClaimRef wrong =
        new ClaimRef(
            good.version(),
            good.tenant(),
            good.claimId(),
            good.offset(),
            good.length(),
            good.checksum() ^ 1,
            good.codec(),
            good.rawLength());
    assertThat(reasonOf(ranges.redeemRange(wrong, 0, 5000, deadline()))).isEqualTo(Reason.CORRUPT);
  }

  @Test
  void aRangeOutsideTheClaimIsRefusedAtOnce() {
    ClaimRef ref = stored(random(10), Codec.NONE, 4);
    assertThatThrownBy(() -> ranges.redeemRange(ref, 5, 6, deadline()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void existenceIsAStatNotARead() {
    ClaimRef ref = stored(random(200_000), Codec.NONE, 5);
    store.reset();
    assertThat(existence.exists(ref, deadline()).join()).isTrue();
    assertThat(store.stats.get()).isEqualTo(1);
    assertThat(store.gets.get()).isZero();
  }

  @Test
  void aCachedClaimExistsWithoutAStoreRequest() {
    ClaimRef ref = stored(random(1000), Codec.NONE, 6);
    redeemer.redeem(ref, deadline()).join();
    store.reset();
    assertThat(existence.exists(ref, deadline()).join()).isTrue();
    assertThat(store.stats.get() + store.gets.get()).isZero();
  }

  @Test
  void aMissingClaimIsAbsentOnlyAfterTwoStatsAgree() {
    ClaimRef missing =
        ClaimRef.of(ACME, new ClaimId(PackId.random(new Random(99)), 0), 0, 10, 1, Codec.NONE, 10);
    assertThat(existence.exists(missing, deadline()).join()).isFalse();
    assertThat(store.stats.get())
        .as("the first look and the second, each at both key layouts")
        .isEqualTo(4);
  }

  @Test
  void aStoreThatCannotAnswerIsUnavailableNeverAbsent() {
    ClaimRef ref = stored(random(1000), Codec.NONE, 7);
    store.statFails = StoreException.Kind.UNAVAILABLE;
    CompletableFuture<Boolean> f = existence.exists(ref, deadline());
    timers.advance(Duration.ofSeconds(6)); // the reader retries the stat until the deadline
    assertThat(reasonOf(f)).isEqualTo(Reason.UNAVAILABLE);
  }

  @Test
  void notFoundThenUnavailableIsUnavailable() {
    ClaimRef missing =
        ClaimRef.of(ACME, new ClaimId(PackId.random(new Random(98)), 0), 0, 10, 1, Codec.NONE, 10);
    store.unavailableAfterStats = 1;
    CompletableFuture<Boolean> f = existence.exists(missing, deadline());
    timers.advance(Duration.ofSeconds(6)); // the reader retries the stat until the deadline
    assertThat(reasonOf(f)).isEqualTo(Reason.UNAVAILABLE);
  }

  @Test
  void aStatTakesTheHomeStoresLimitLikeAGetAndIsShedPastIt() {
    ClaimRef read = stored(random(1000), Codec.NONE, 10);
    ClaimRef headed = stored(random(1000), Codec.NONE, 11);
    open(1, 0); // one store request at a time, nothing queued
    store.reset();
    store.getGate = new CompletableFuture<>();
    CompletableFuture<byte[]> hung = redeemer.redeem(read, deadline());
    assertThat(store.gets.get()).as("the GET holds the store's one slot").isEqualTo(1);

    assertThat(reasonOf(existence.exists(headed, deadline())))
        .as("shed past the limit, as a GET would be")
        .isEqualTo(Reason.UNAVAILABLE);
    assertThat(store.stats.get()).as("no stat past the store's limit").isZero();

    store.getGate.complete(null);
    assertThat(hung.join()).hasSize(1000);
    assertThat(existence.exists(headed, deadline()).join()).isTrue();
    assertThat(store.stats.get()).isEqualTo(1);
  }

  @Test
  void concurrentStatsOfOnePackAreOneStoreStatAndAFoundPackIsCached() {
    ClaimRef ref = stored(random(1000), Codec.NONE, 12);
    store.reset();
    store.statGate = new CompletableFuture<>();
    CompletableFuture<Boolean> first = existence.exists(ref, deadline());
    CompletableFuture<Boolean> second = existence.exists(ref, deadline());
    assertThat(store.stats.get()).as("coalesced into one store stat").isEqualTo(1);

    store.statGate.complete(null);
    assertThat(first.join()).isTrue();
    assertThat(second.join()).isTrue();
    assertThat(existence.exists(ref, deadline()).join()).isTrue();
    assertThat(store.stats.get() + store.gets.get()).as("the found pack, cached").isEqualTo(1);
  }

  /** A timer the reader set: its task, due at {@code at} on the ticker. */
  private record Due(long at, Runnable task) {}

  /** The reader's timers, run by hand: {@link #advance} moves the ticker and runs what is due. */
  private final class Timers implements ReaderScheduler {
    private final List<Due> pending = new ArrayList<>();

    @Override
    public synchronized Cancellable schedule(Runnable task, long delayNanos) {
      Due t = new Due(ticker.read() + delayNanos, task);
      pending.add(t);
      return () -> {
        synchronized (this) {
          pending.remove(t);
        }
      };
    }

    void advance(Duration d) {
      long end = ticker.read() + d.toNanos();
      while (true) {
        Due next;
        synchronized (this) {
          next =
              pending.stream()
                  .filter(t -> t.at() <= end)
                  .min(java.util.Comparator.comparingLong(Due::at))
                  .orElse(null);
          if (next != null) {
            pending.remove(next);
          }
        }
        if (next == null) {
          break;
        }
        long wait = next.at() - ticker.read();
        if (wait > 0) {
          ticker.advance(Duration.ofNanos(wait));
        }
        next.task().run();
      }
      long rest = end - ticker.read();
      if (rest > 0) {
        ticker.advance(Duration.ofNanos(rest));
      }
    }
  }

  /** A store that counts reads, read bytes and stats, and fails stats on request. */
  private static final class Counting implements ClaimStore {
    final ClaimStore inner;
    final AtomicInteger gets = new AtomicInteger();
    final AtomicLong bytesRead = new AtomicLong();
    final AtomicInteger stats = new AtomicInteger();
    volatile StoreException.Kind statFails;
    volatile int unavailableAfterStats = -1;
    volatile CompletableFuture<Void> getGate = CompletableFuture.completedFuture(null);
    volatile CompletableFuture<Void> statGate = CompletableFuture.completedFuture(null);

    Counting(ClaimStore inner) {
      this.inner = inner;
    }

    void reset() {
      gets.set(0);
      bytesRead.set(0);
      stats.set(0);
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
      return inner.putIfAbsent(key, bytes, timeout);
    }

    @Override
    public CompletableFuture<byte[]> getRange(
        String key, long offset, int length, Duration timeout) {
      gets.incrementAndGet();
      return getGate
          .thenCompose(v -> inner.getRange(key, offset, length, timeout))
          .thenApply(
              b -> {
                bytesRead.addAndGet(b.length);
                return b;
              });
    }

    @Override
    public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
      int n = stats.incrementAndGet();
      StoreException.Kind k = statFails;
      if (k == null && unavailableAfterStats >= 0 && n > unavailableAfterStats) {
        k = StoreException.Kind.UNAVAILABLE;
      }
      if (k != null) {
        return CompletableFuture.failedFuture(new StoreException(k, "stat fails: " + key));
      }
      return statGate.thenCompose(v -> inner.stat(key, timeout));
    }

    @Override
    public CompletableFuture<Void> delete(String key, Duration timeout) {
      return inner.delete(key, timeout);
    }

    @Override
    public String describe() {
      return "counting " + inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
