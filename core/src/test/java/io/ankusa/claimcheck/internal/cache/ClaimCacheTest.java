package io.ankusa.claimcheck.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ClaimCacheTest {

  @Test
  void holdsWhatWasPutAndSharesTheArray() {
    ClaimCache<String> c = ClaimCache.bytesBounded(100);
    byte[] v = {1, 2, 3};
    c.put("a", v);
    assertThat(c.getIfPresent("a")).isSameAs(v);
    assertThat(c.getIfPresent("b")).isNull();
    assertThat(c.weightedSize()).isEqualTo(3);
  }

  @Test
  void staysWithinItsByteBound() {
    ClaimCache<Integer> c = ClaimCache.bytesBounded(1000);
    for (int i = 0; i < 500; i++) {
      c.put(i, new byte[30 + i % 50]);
      assertThat(c.weightedSize()).isLessThanOrEqualTo(1000);
    }
    long held = 0;
    int entries = 0;
    for (int i = 0; i < 500; i++) {
      byte[] v = c.getIfPresent(i);
      if (v != null) {
        held += v.length;
        entries++;
      }
    }
    assertThat(held).isLessThanOrEqualTo(1000);
    assertThat(entries).isGreaterThan(0).isLessThan(500);
  }

  @Test
  void aValueLargerThanTheBoundIsNotKept() {
    ClaimCache<String> c = ClaimCache.bytesBounded(10);
    c.put("big", new byte[11]);
    assertThat(c.getIfPresent("big")).isNull();
    c.put("empty", new byte[0]);
    assertThat(c.getIfPresent("empty")).isEmpty();
    assertThat(c.weightedSize()).as("an empty value weighs 1").isEqualTo(1);
  }

  @Test
  void zeroBytesCachesNothingAndNegativeIsRefused() {
    ClaimCache<String> c = ClaimCache.bytesBounded(0);
    c.put("a", new byte[1]);
    assertThat(c.getIfPresent("a")).isNull();
    assertThat(c.maxBytes()).isZero();
    assertThatThrownBy(() -> ClaimCache.bytesBounded(-1)).hasMessageContaining("cacheMaxBytes");
  }

  @Test
  void removeDropsTheEntryOnlyWhileItHoldsThatVeryArray() {
    ClaimCache<String> c = ClaimCache.bytesBounded(100);
    byte[] v = {1, 2, 3};
    c.put("a", v);
    c.remove("a", new byte[] {1, 2, 3});
    assertThat(c.getIfPresent("a")).as("equal bytes, another array: kept").isSameAs(v);

    c.remove("a", v);
    assertThat(c.getIfPresent("a")).isNull();
    assertThat(c.weightedSize()).isZero();

    byte[] fresh = {1, 2, 3};
    c.put("a", fresh);
    c.remove("a", v);
    assertThat(c.getIfPresent("a")).as("a stale verdict never drops a fresh put").isSameAs(fresh);
    assertThat(c.weightedSize()).isEqualTo(3);
    c.remove("missing", v);
    ClaimCache.bytesBounded(0).remove("a", v);
  }

  @Test
  void aRemovedKeyPutAgainStaysWithinTheBound() {
    ClaimCache<Integer> c = ClaimCache.bytesBounded(300);
    byte[] first = new byte[100];
    c.put(1, first);
    c.remove(1, first);
    for (int i = 0; i < 10; i++) {
      c.put(1 + i % 4, new byte[100]);
      assertThat(c.weightedSize()).isLessThanOrEqualTo(300);
    }
  }

  @Test
  void invalidateAllEmptiesIt() {
    ClaimCache<String> c = ClaimCache.bytesBounded(100);
    c.put("a", new byte[5]);
    c.invalidateAll();
    assertThat(c.getIfPresent("a")).isNull();
    assertThat(c.weightedSize()).isZero();
  }

  @Test
  void freshClaimIsKeptWhenTheCacheIsFullOfClaimsAlreadyRead() {
    // Regression: a frequency-admitting cache refused a just-fetched claim in favour of claims
    // already read once, so prefetched claims were fetched twice.
    ClaimCache<Integer> c = ClaimCache.bytesBounded(1000);
    for (int i = 0; i < 10; i++) {
      c.put(i, new byte[100]);
      assertThat(c.getIfPresent(i)).isNotNull();
    }
    for (int i = 10; i < 200; i++) {
      c.put(i, new byte[100]);
      assertThat(c.getIfPresent(i)).as("claim %d just fetched", i).isNotNull();
      assertThat(c.weightedSize()).isLessThanOrEqualTo(1000);
    }
    assertThat(c.getIfPresent(0)).isNull();
  }

  @Test
  void replacingAValueKeepsTheByteCountExact() {
    ClaimCache<String> c = ClaimCache.bytesBounded(100);
    c.put("a", new byte[10]);
    c.put("a", new byte[30]);
    assertThat(c.weightedSize()).isEqualTo(30);
    c.invalidateAll();
    assertThat(c.weightedSize()).isZero();
  }
}
