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
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A redeem computes the claim's CRC32C once: a miss in the fetch function before the reader caches
 * (the redeem that led the flight takes that very array as verified), a cache hit when the answer
 * is checked against the redeem's own ref. Bytes the redeem's own function did not check are
 * checked, so another ref naming the same range never gets them unverified. Counted through the
 * checksum seam of {@link Claims}; the decoding after the check computes none.
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
    stores = ClaimStores.builder().ticker(ticker).add(store, Duration.ofSeconds(5)).build();
    reader =
        ClaimReaders.create(
            ReaderSettings.builder(stores.size())
                .ticker(ticker)
                .maxConcurrentReads(4)
                .cacheMaxBytes(1 << 20)
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
}
