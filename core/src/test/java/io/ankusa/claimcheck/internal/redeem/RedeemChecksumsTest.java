package io.ankusa.claimcheck.internal.redeem;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.wire.Checksums;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.InlineArrivals;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A redeem computes the claim's CRC32C once: a miss in the fetch function before the reader caches
 * (the redeem that led the flight takes that very array as verified), a cache hit when the answer
 * is checked against the redeem's own ref. Bytes the redeem's own function did not check are
 * checked, so another ref naming the same range never gets them unverified. A large claim read on
 * the redeeming thread by a store that reports its arrivals (as the S3 store's inline read does)
 * has its checksum summed while it arrives ({@link ArrivingChecksum}): the check after the last
 * byte does not sum it again, bytes damaged on the way still fail it, an answer other than the
 * array that arrived is summed whole, and a watcher the caller set (the gateway's early answer)
 * still sees every arrival. Counted through the checksum seam of {@link Claims}; the decoding after
 * the check computes none.
 */
class RedeemChecksumsTest {

  private static final Tenant ACME = Tenant.of("acme");

  private final FakeTicker ticker = new FakeTicker();
  private final AtomicInteger checksums = new AtomicInteger();
  private final MemoryStore store =
      MemoryStores.create("redeem-checksums-" + System.nanoTime(), ticker.hangClock());
  private ClaimStores stores;
  private ClaimReader reader;

  @AfterEach
  void close() {
    reader.close();
    stores.close();
  }

  private Redeemer redeemer() {
    return redeemer(store, 1 << 20);
  }

  /** A redeemer over {@code over} alone, its reader caching {@code cacheBytes}. */
  private Redeemer redeemer(ClaimStore over, long cacheBytes) {
    stores = ClaimStores.builder().ticker(ticker).add(over, Duration.ofSeconds(5)).build();
    reader =
        ClaimReaders.create(
            ReaderSettings.builder(stores.size())
                .ticker(ticker)
                .maxConcurrentReads(4)
                .cacheMaxBytes(cacheBytes)
                .scheduler((task, delay) -> () -> {})
                .build());
    Admission admission = new Admission(List.of(), 1 << 20);
    Claims counting =
        new Claims(
            admission.readMaxBytes(),
            bytes -> {
              checksums.incrementAndGet();
              return Checksums.crc32c(bytes);
            });
    return new Redeemer(
        stores, reader, ticker, Duration.ofSeconds(5).toNanos(), admission, counting);
  }

  /** Stores {@code value} as a one-claim pack and returns its ref. */
  private ClaimRef stored(byte[] value) {
    EncodedPack pack = Packs.encode(List.of(new PackEntryInput(value, Codec.NONE)));
    PackId id = PackId.random(new Random(7));
    stores
        .write(
            ACME.value(), id.value(), pack.bytes(), ticker.read() + Duration.ofSeconds(5).toNanos())
        .join();
    return Packs.toRef(ACME, id, pack.entries().get(0), value.length);
  }

  private long deadline() {
    return ticker.read() + Duration.ofSeconds(5).toNanos();
  }

  @Test
  void aCacheHitAndAMissEachComputeTheClaimChecksumOnce() {
    Redeemer redeemer = redeemer();
    byte[] value = new byte[3000];
    new Random(1).nextBytes(value);
    ClaimRef ref = stored(value);

    assertThat(redeemer.redeem(ref, deadline()).join()).isEqualTo(value);
    assertThat(checksums.get()).as("a miss: the fetch's check alone").isEqualTo(1);

    checksums.set(0);
    assertThat(redeemer.redeem(ref, deadline()).join()).isEqualTo(value);
    assertThat(checksums.get()).as("a cache hit: the answer's check alone").isEqualTo(1);
  }

  @Test
  void aRefWhoseRangeIsCachedForAnotherRefIsCheckedAgainstItsOwnChecksum() {
    Redeemer redeemer = redeemer();
    byte[] value = new byte[3000];
    new Random(2).nextBytes(value);
    ClaimRef ref = stored(value);
    assertThat(redeemer.redeem(ref, deadline()).join()).isEqualTo(value);
    // The same range, a checksum the stored bytes do not have: the cached bytes are not its own.
    ClaimRef other =
        new ClaimRef(
            ref.version(),
            ref.tenant(),
            ref.claimId(),
            ref.offset(),
            ref.length(),
            ~ref.checksum(),
            ref.codec(),
            ref.rawLength());

    checksums.set(0);
    assertThat(redeemer.redeem(other, deadline()))
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withMessageContaining("CORRUPT");
    assertThat(checksums.get())
        .as("the hit checked, then the second look's own check")
        .isGreaterThanOrEqualTo(2);
  }

  private static final int SIZE = 256 << 10;

  /** How {@link ArrivingStore} answers, after its arrivals in pieces: which array. */
  private enum Answer {
    THE_ARRAY_THAT_ARRIVED,
    DAMAGED_IN_TRANSIT,
    A_COPY
  }

  private static byte[] value(long seed) {
    byte[] v = new byte[SIZE];
    new Random(seed).nextBytes(v);
    return v;
  }

  @Test
  void aClaimSummedWhileItArrivesIsNotSummedAgainAfterItsLastByte() {
    Redeemer redeemer = redeemer(new ArrivingStore(store, Answer.THE_ARRAY_THAT_ARRIVED), 0);
    byte[] value = value(1);
    ClaimRef ref = stored(value);
    AtomicInteger seen = new AtomicInteger();

    byte[] got;
    try (InlineCalls.Scope outer = InlineArrivals.watch((a, filled) -> seen.set(filled))) {
      got = redeemer.redeem(ref, deadline()).join();
    }

    assertThat(got).isEqualTo(value);
    assertThat(checksums.get()).as("summed as it arrived").isZero();
    assertThat(seen.get()).as("the caller's watcher saw the last arrival").isEqualTo(SIZE);
  }

  @Test
  void bytesDamagedInTransitStillFailTheCheck() {
    Redeemer redeemer = redeemer(new ArrivingStore(store, Answer.DAMAGED_IN_TRANSIT), 0);
    ClaimRef ref = stored(value(2));

    assertThat(redeemer.redeem(ref, deadline()))
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withMessageContaining("CORRUPT");
  }

  @Test
  void anAnswerOtherThanTheArrayThatArrivedIsSummedWhole() {
    Redeemer redeemer = redeemer(new ArrivingStore(store, Answer.A_COPY), 0);
    byte[] value = value(3);
    ClaimRef ref = stored(value);

    assertThat(redeemer.redeem(ref, deadline()).join()).isEqualTo(value);
    assertThat(checksums.get()).isEqualTo(1);
  }

  /**
   * Answers a read on the calling thread, filling a fresh array in four pieces and reporting each
   * ({@link InlineArrivals}), as the S3 store's inline read does; damages the last byte before it
   * arrives, or answers a copy, as asked.
   */
  private static final class ArrivingStore implements ClaimStore {
    private final MemoryStore inner;
    private final Answer answer;

    ArrivingStore(MemoryStore inner, Answer answer) {
      this.inner = inner;
      this.answer = answer;
    }

    @Override
    public CompletableFuture<byte[]> getRange(
        String key, long offset, int length, Duration timeout) {
      byte[] stored = inner.getRange(key, offset, length, timeout).join();
      InlineArrivals.Watcher watcher = InlineArrivals.current();
      byte[] filling = new byte[stored.length];
      int piece = Math.max(1, stored.length / 4);
      for (int at = 0; at < stored.length; at += piece) {
        int n = Math.min(piece, stored.length - at);
        System.arraycopy(stored, at, filling, at, n);
        if (answer == Answer.DAMAGED_IN_TRANSIT && at + n == stored.length) {
          filling[stored.length - 1] ^= 1;
        }
        watcher = InlineArrivals.report(watcher, filling, at + n);
      }
      return CompletableFuture.completedFuture(answer == Answer.A_COPY ? filling.clone() : filling);
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
      return inner.putIfAbsent(key, bytes, timeout);
    }

    @Override
    public CompletableFuture<Void> delete(String key, Duration timeout) {
      return inner.delete(key, timeout);
    }

    @Override
    public String describe() {
      return "arriving " + inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
