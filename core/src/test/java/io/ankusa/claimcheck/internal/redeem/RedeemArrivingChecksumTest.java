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
 * A large claim read on the redeeming thread has its checksum summed while it arrives (a store that
 * reports its arrivals, as the S3 store's inline read does): the check after the last byte does not
 * sum it again, bytes damaged on the way still fail it, an answer other than the array that arrived
 * is summed whole, and a watcher the caller set (the gateway's early answer) still sees every
 * arrival. Counted through the checksum seam of {@link Claims}.
 */
class RedeemArrivingChecksumTest {

  private static final Tenant ACME = Tenant.of("acme");
  private static final int SIZE = 256 << 10;

  private final FakeTicker ticker = new FakeTicker();
  private final AtomicInteger wholes = new AtomicInteger();
  private final MemoryStore memory =
      MemoryStores.create("redeem-arriving-" + System.nanoTime(), ticker.hangClock());
  private ClaimStores stores;
  private ClaimReader reader;

  /** How the test store answers: its arrivals in pieces, then which array. */
  private enum Answer {
    THE_ARRAY_THAT_ARRIVED,
    DAMAGED_IN_TRANSIT,
    A_COPY
  }

  @AfterEach
  void close() {
    reader.close();
    stores.close();
  }

  private Redeemer redeemer(Answer answer) {
    ClaimStore arriving = new ArrivingStore(memory, answer);
    stores = ClaimStores.builder().ticker(ticker).add(arriving, Duration.ofSeconds(5)).build();
    reader =
        ClaimReaders.create(
            ReaderSettings.builder(stores.size())
                .ticker(ticker)
                .maxConcurrentReads(4)
                .cacheMaxBytes(0)
                .scheduler((task, delay) -> () -> {})
                .build());
    Admission admission = new Admission(List.of(), 1 << 20);
    Claims counting =
        new Claims(
            admission.readMaxBytes(),
            bytes -> {
              wholes.incrementAndGet();
              return Checksums.crc32c(bytes);
            });
    return new Redeemer(
        stores, reader, ticker, Duration.ofSeconds(5).toNanos(), admission, counting);
  }

  private ClaimRef stored(byte[] value) {
    EncodedPack pack = Packs.encode(List.of(new PackEntryInput(value, Codec.NONE)));
    PackId id = PackId.random(new Random(7));
    stores.write(ACME.value(), id.value(), pack.bytes(), deadline()).join();
    return Packs.toRef(ACME, id, pack.entries().get(0), value.length);
  }

  private long deadline() {
    return ticker.read() + Duration.ofSeconds(5).toNanos();
  }

  private static byte[] value(long seed) {
    byte[] v = new byte[SIZE];
    new Random(seed).nextBytes(v);
    return v;
  }

  @Test
  void aClaimSummedWhileItArrivesIsNotSummedAgainAfterItsLastByte() {
    Redeemer redeemer = redeemer(Answer.THE_ARRAY_THAT_ARRIVED);
    byte[] value = value(1);
    ClaimRef ref = stored(value);
    AtomicInteger seen = new AtomicInteger();

    byte[] got;
    try (InlineCalls.Scope outer = InlineArrivals.watch((a, filled) -> seen.set(filled))) {
      got = redeemer.redeem(ref, deadline()).join();
    }

    assertThat(got).isEqualTo(value);
    assertThat(wholes.get()).as("summed as it arrived").isZero();
    assertThat(seen.get()).as("the caller's watcher saw the last arrival").isEqualTo(SIZE);
  }

  @Test
  void bytesDamagedInTransitStillFailTheCheck() {
    Redeemer redeemer = redeemer(Answer.DAMAGED_IN_TRANSIT);
    ClaimRef ref = stored(value(2));

    assertThat(redeemer.redeem(ref, deadline()))
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withMessageContaining("CORRUPT");
  }

  @Test
  void anAnswerOtherThanTheArrayThatArrivedIsSummedWhole() {
    Redeemer redeemer = redeemer(Answer.A_COPY);
    byte[] value = value(3);
    ClaimRef ref = stored(value);

    assertThat(redeemer.redeem(ref, deadline()).join()).isEqualTo(value);
    assertThat(wholes.get()).isEqualTo(1);
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
