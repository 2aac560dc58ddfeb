package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck.Prefetch;
import io.ankusa.claimcheck.ClaimCheck.Prefetch.Start;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimCheck#prefetch}, the facade's prefetch with a deadline: a started prefetch holds its
 * claim for the first redeem, a redeem that comes first ends it unfetched, and there is nothing to
 * prefetch into without a cache, for a refused tenant, or for a claim cached already.
 */
class PrefetchTest {

  private final String a = "pf-a-" + UUID.randomUUID();

  @AfterEach
  void forget() {
    MemoryStores.forget(a);
  }

  private Map<String, Object> config() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + a);
    m.put("claimcheck.tenant", "acme");
    return m;
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static long deadline(ClaimCheck cc) {
    return cc.ticker().read() + Duration.ofSeconds(5).toNanos();
  }

  @Test
  void aStartedPrefetchServesTheFirstRedeemWithoutAStoreAndHearsIt() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      byte[] value = random(1000, 1);
      ClaimRef ref = cc.checkIn(value);
      AtomicInteger reads = new AtomicInteger();
      Prefetch p = cc.prefetch(ref, reads::incrementAndGet);
      assertThat(p).isNotNull();
      assertThat(p.reserve()).isEqualTo(Start.STARTED);
      p.fetch(deadline(cc)).join();
      assertThat(reads).hasValue(0);
      MemoryStores.named(a).failAlways(MemoryStore.Op.GET, Kind.UNAVAILABLE);
      assertThat(cc.redeem(ref, deadline(cc)).join()).isEqualTo(value);
      assertThat(reads).hasValue(1);
      assertThat(cc.redeem(ref, deadline(cc)).join()).isEqualTo(value);
      assertThat(reads).as("onRead runs once").hasValue(1);
      p.release(); // ended already: does nothing
      assertThat(p.reserve()).isEqualTo(Start.GONE);
    }
  }

  @Test
  void aRedeemBeforeTheFetchEndsThePrefetchSoItIsNeverFetched() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      byte[] value = random(500, 2);
      ClaimRef ref = cc.checkIn(value);
      AtomicInteger reads = new AtomicInteger();
      Prefetch p = cc.prefetch(ref, reads::incrementAndGet);
      assertThat(cc.redeem(ref, deadline(cc)).join()).isEqualTo(value);
      assertThat(reads).hasValue(1);
      assertThat(p.reserve()).isEqualTo(Start.GONE);
    }
  }

  @Test
  void aReleasedPrefetchNeverStarts() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ClaimRef ref = cc.checkIn(random(100, 3));
      AtomicInteger reads = new AtomicInteger();
      Prefetch p = cc.prefetch(ref, reads::incrementAndGet);
      p.release();
      assertThat(p.reserve()).isEqualTo(Start.GONE);
      cc.redeem(ref, deadline(cc)).join();
      assertThat(reads).as("a released prefetch hears no read").hasValue(0);
    }
  }

  @Test
  void thereIsNothingToPrefetchIntoWithoutACacheForARefusedTenantOrACachedClaim() {
    Map<String, Object> noCache = config();
    noCache.put(ClaimCheckConfig.CACHE_MAX_BYTES, 0);
    try (ClaimCheck cc = ClaimCheck.open(noCache)) {
      assertThat(cc.prefetch(cc.checkIn(random(10, 4)), () -> {})).isNull();
    }
    Map<String, Object> refusing = config();
    refusing.put(ClaimCheckConfig.TENANTS_ALLOWED, List.of("other"));
    refusing.put(ClaimCheckConfig.CACHE_MAX_BYTES, 1 << 20);
    try (ClaimCheck cc = ClaimCheck.open(refusing)) {
      assertThat(cc.prefetch(cc.checkIn(random(10, 5)), () -> {})).isNull();
    }
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ClaimRef ref = cc.checkIn(random(10, 6));
      cc.redeem(ref, deadline(cc)).join(); // now cached
      assertThat(cc.prefetch(ref, () -> {})).isNull();
      Prefetch other = cc.prefetch(cc.checkIn(random(10, 7)), () -> {});
      assertThat(other).isNotNull();
      other.release();
    }
  }
}
