package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStore.Op;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which facade calls let their store request run on the calling thread ({@link
 * io.ankusa.claimcheck.store.InlineCalls}): the blocking redeem (bounded by its deadline) and the
 * check-ins (bounded by the write's own timeout) — the calls whose thread waits anyway; never the
 * asynchronous redeem, whose caller goes on with a future.
 */
class InlineCallsTest {

  private final String name = "inline-" + UUID.randomUUID();

  @AfterEach
  void forget() {
    MemoryStores.forget(name);
  }

  private ClaimCheck open() {
    return ClaimCheck.open(
        Map.of("claimcheck.stores", "faulty:" + name, "claimcheck.tenant", "acme"));
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void aBlockingRedeemLetsItsStoreRequestRunOnItsThreadUntilItsDeadline() {
    try (ClaimCheck cc = open()) {
      MemoryStore store = MemoryStores.named(name);
      ClaimRef ref = cc.checkIn(random(2048, 1));
      long deadline = Duration.ofSeconds(5).toNanos();
      assertThat(cc.redeemBlocking(ref, cc.ticker().read() + deadline)).isEqualTo(random(2048, 1));
      assertThat(store.count(Op.GET)).isEqualTo(1);
      assertThat(store.lastInlineAllowance(Op.GET)).isPositive().isLessThanOrEqualTo(deadline);
    }
  }

  @Test
  void aCheckInLetsItsWriteRunOnItsThreadBoundedByTheWritesOwnTimeout() {
    try (ClaimCheck cc = open()) {
      MemoryStore store = MemoryStores.named(name);
      cc.checkIn(random(2048, 2));
      assertThat(store.lastInlineAllowance(Op.PUT)).isEqualTo(Long.MAX_VALUE);
      cc.checkInAll(java.util.List.of(random(100, 3), random(100, 4)));
      assertThat(store.lastInlineAllowance(Op.PUT)).isEqualTo(Long.MAX_VALUE);
    }
  }

  @Test
  void anAsynchronousRedeemRunsNothingOnItsCallersThread() {
    try (ClaimCheck cc = open()) {
      MemoryStore store = MemoryStores.named(name);
      ClaimRef ref = cc.checkIn(random(2048, 5));
      assertThat(cc.redeem(ref, cc.ticker().read() + Duration.ofSeconds(5).toNanos()).join())
          .isEqualTo(random(2048, 5));
      assertThat(store.lastInlineAllowance(Op.GET)).isZero();
    }
  }
}
