package io.ankusa.claimcheck.internal.redeem;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.compress.Compressor;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The redeem that led a flight gets the array it fetched as its own (no copy) while the cache keeps
 * that array; an application that writes into it cannot make a later hit or a follower of the same
 * flight return changed bytes: every other taker copies, verifies the copy, and treats a changed
 * copy as a miss (the entry evicted, the claim fetched again), never as {@code CORRUPT}.
 */
class RedeemOwnershipTest {

  private static final Tenant ACME = Tenant.of("acme");

  private final FakeTicker ticker = new FakeTicker();
  private final MemoryStore memory =
      MemoryStores.create("redeem-ownership-" + System.nanoTime(), ticker.hangClock());
  private final Held store = new Held(memory);
  private ClaimStores stores;
  private ClaimReader reader;
  private Redeemer redeemer;

  @BeforeEach
  void open() {
    stores = ClaimStores.builder().ticker(ticker).add(store, Duration.ofSeconds(5)).build();
    reader =
        ClaimReaders.create(
            ReaderSettings.builder(stores.size())
                .ticker(ticker)
                .maxConcurrentReads(4)
                .cacheMaxBytes(1 << 20)
                .scheduler((task, delay) -> () -> {})
                .build());
    redeemer =
        new Redeemer(
            stores,
            reader,
            ticker,
            Duration.ofSeconds(5).toNanos(),
            new Admission(List.of(), 1 << 20));
  }

  @AfterEach
  void close() {
    reader.close();
    stores.close();
  }

  private ClaimRef stored(byte[] value, Codec codec) {
    byte[] stored = codec == Codec.NONE ? value : Compressor.compress(codec, value);
    EncodedPack pack = Packs.encode(List.of(new PackEntryInput(stored, codec)));
    PackId id = PackId.random(new Random(value.length));
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

  /** The cached array under {@code ref}'s key, looked up without fetching. */
  private byte[] cachedArray(ClaimRef ref) {
    return reader
        .fetch(
            Redeemer.keyOf(ref),
            0,
            () -> CompletableFuture.failedFuture(new AssertionError("not cached")),
            deadline())
        .join();
  }

  @Test
  void theLeaderGetsTheArrayItFetchedAndAHitGetsItsOwnCopy() {
    byte[] value = random(4000);
    ClaimRef ref = stored(value, Codec.NONE);

    byte[] first = redeemer.redeem(ref, deadline()).join();
    assertThat(first).isEqualTo(value);
    assertThat(cachedArray(ref)).as("a miss: not copied, the cache keeps it").isSameAs(first);

    byte[] hit = redeemer.redeem(ref, deadline()).join();
    assertThat(hit).isEqualTo(value).isNotSameAs(first);
    assertThat(store.gets.get()).isEqualTo(1);
  }

  @Test
  void anApplicationChangingItsArrayCannotMakeALaterHitReturnWrongBytes() {
    byte[] value = random(5000);
    ClaimRef ref = stored(value, Codec.NONE);
    byte[] mine = redeemer.redeem(ref, deadline()).join();

    mine[17] ^= 0x5a; // the application's own array: it may
    mine[4000] = (byte) (mine[4000] + 1);

    byte[] again = redeemer.redeem(ref, deadline()).join();
    assertThat(again).as("not the changed bytes, and not CORRUPT").isEqualTo(value);
    assertThat(store.gets.get()).as("the changed entry was a miss: fetched again").isEqualTo(2);
    assertThat(cachedArray(ref))
        .as("the changed entry evicted, the fresh one kept")
        .isSameAs(again);

    byte[] hit = redeemer.redeem(ref, deadline()).join();
    assertThat(hit).isEqualTo(value);
    assertThat(store.gets.get()).as("a hit again").isEqualTo(2);
  }

  @Test
  void aFollowerCopiesThenVerifiesSoTheLeadersApplicationCannotChangeItsBytes() {
    byte[] value = random(6000);
    ClaimRef ref = stored(value, Codec.NONE);
    store.hold = true;

    CompletableFuture<byte[]> leader = redeemer.redeem(ref, deadline());
    // The leader's application writes into its array as soon as it has it: before the follower
    // of the same flight (answered right after the leader, on the same thread) copies it.
    CompletableFuture<byte[]> changed =
        leader.thenApply(
            b -> {
              b[0] ^= 1;
              b[5999] ^= (byte) 0x80;
              return b;
            });
    CompletableFuture<byte[]> follower = redeemer.redeem(ref, deadline());
    assertThat(store.gets.get()).as("coalesced: one GET").isEqualTo(1);

    store.releaseOne();
    assertThat(changed.join()).isNotEqualTo(value);
    assertThat(follower).as("fetched again, not answered yet").isNotDone();
    assertThat(store.gets.get()).as("the follower's changed copy was a miss").isEqualTo(2);

    store.releaseOne();
    assertThat(follower.join()).isEqualTo(value);
  }

  @Test
  void aCompressedClaimsHitIsDecodedFromItsOwnCopy() {
    byte[] value = new byte[20_000];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) (i % 7);
    }
    ClaimRef ref = stored(value, Codec.GZIP);

    assertThat(redeemer.redeem(ref, deadline()).join()).isEqualTo(value);
    byte[] cached = cachedArray(ref);
    assertThat(cached.length).as("stored compressed").isLessThan(value.length);
    assertThat(redeemer.redeem(ref, deadline()).join()).isEqualTo(value);
    assertThat(cachedArray(ref)).as("the stored bytes are no caller's").isSameAs(cached);
    assertThat(store.gets.get()).isEqualTo(1);
  }

  /** A store that counts reads and, while {@link #hold} is set, answers them one by one. */
  private static final class Held implements ClaimStore {
    final ClaimStore inner;
    final AtomicInteger gets = new AtomicInteger();
    final ArrayDeque<CompletableFuture<Void>> gates = new ArrayDeque<>();
    volatile boolean hold;

    Held(ClaimStore inner) {
      this.inner = inner;
    }

    void releaseOne() {
      CompletableFuture<Void> g;
      synchronized (gates) {
        g = gates.poll();
      }
      assertThat(g).as("a held GET").isNotNull();
      g.complete(null);
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
      return inner.putIfAbsent(key, bytes, timeout);
    }

    @Override
    public CompletableFuture<byte[]> getRange(
        String key, long offset, int length, Duration timeout) {
      gets.incrementAndGet();
      if (!hold) {
        return inner.getRange(key, offset, length, timeout);
      }
      CompletableFuture<Void> gate = new CompletableFuture<>();
      synchronized (gates) {
        gates.add(gate);
      }
      return gate.thenCompose(v -> inner.getRange(key, offset, length, timeout));
    }

    @Override
    public CompletableFuture<Void> delete(String key, Duration timeout) {
      return inner.delete(key, timeout);
    }

    @Override
    public String describe() {
      return "held " + inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
