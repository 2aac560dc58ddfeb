package io.ankusa.claimcheck.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.cache.ClaimCache.Pin;
import io.ankusa.claimcheck.internal.cache.ClaimCache.Pin.Start;
import io.ankusa.claimcheck.internal.cache.ClaimCache.Pin.State;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ClaimCachePinTest {

  private final List<Pin> reads = new ArrayList<>();
  private final ClaimCache<String> cache = ClaimCache.bytesBounded(1000);

  private Pin startedPin(String key, int weight) {
    Pin p = cache.register(key, reads::add);
    assertThat(p.start(weight)).isEqualTo(Start.STARTED);
    p.started();
    return p;
  }

  @Test
  void aPinnedClaimOutlivesAnyAmountOfLaterTraffic() {
    Pin p = startedPin("prefetched", 400);
    byte[] v = new byte[400];
    cache.put("prefetched", v);
    for (int i = 0; i < 100; i++) {
      cache.put("other" + i, new byte[300]); // 30 KB through a 1 KB cache
      assertThat(cache.weightedSize()).isLessThanOrEqualTo(1000);
    }
    assertThat(reads).isEmpty();
    assertThat(cache.getIfPresent("prefetched")).isSameAs(v);
    assertThat(reads).containsExactly(p);
    assertThat(p.state()).isEqualTo(State.READ);
    assertThat(cache.pinnedBytes()).isZero();
    // once read it is an ordinary entry again: the next traffic evicts it
    for (int i = 0; i < 10; i++) {
      cache.put("later" + i, new byte[300]);
    }
    assertThat(cache.getIfPresent("prefetched")).isNull();
    assertThat(reads).hasSize(1);
  }

  @Test
  void aLookupBeforeTheBytesArriveIsTheReadAndTheBytesThenArriveUnpinned() {
    Pin p = startedPin("k", 500);
    assertThat(cache.getIfPresent("k")).isNull(); // the reader joins the fetch under way
    assertThat(reads).containsExactly(p);
    cache.put("k", new byte[500]);
    assertThat(cache.pinnedBytes()).isZero();
    cache.put("x", new byte[600]); // evicts k: it was read
    assertThat(cache.getIfPresent("k")).isNull();
    assertThat(cache.weightedSize()).isEqualTo(600);
  }

  @Test
  void theStartingThreadsOwnLookupsDoNotEndThePinButAnotherThreadsDo() throws Exception {
    Pin p = cache.register("k", reads::add);
    assertThat(p.start(10)).isEqualTo(Start.STARTED);
    assertThat(cache.getIfPresent("k")).isNull(); // the prefetch's own fetch looking the key up
    assertThat(p.state()).isEqualTo(State.STARTING);
    CompletableFuture.runAsync(() -> cache.getIfPresent("k")).get();
    assertThat(p.state()).isEqualTo(State.READ);
    assertThat(reads).containsExactly(p);
    p.started(); // too late: stays READ
    assertThat(p.state()).isEqualTo(State.READ);
  }

  @Test
  void aPendingPinReadBeforeItStartsNeverStarts() {
    Pin p = cache.register("k", reads::add);
    assertThat(cache.getIfPresent("k")).isNull();
    assertThat(reads).containsExactly(p);
    assertThat(p.start(10)).isEqualTo(Start.GONE);
    assertThat(cache.pinnedBytes()).isZero();
  }

  @Test
  void pinsReserveWithinTheBoundAndNoMore() {
    startedPin("a", 600);
    Pin b = cache.register("b", reads::add);
    assertThat(b.start(500)).isEqualTo(Start.NO_ROOM);
    assertThat(b.state()).isEqualTo(State.PENDING);
    assertThat(cache.pinnedBytes()).isEqualTo(600);
    cache.getIfPresent("a"); // read: its reservation returns
    assertThat(b.start(500)).isEqualTo(Start.STARTED);
    assertThat(cache.pinnedBytes()).isEqualTo(500);
  }

  @Test
  void pinnedBytesCountAndTheBoundHoldsWithEveryPinFull() {
    startedPin("a", 500);
    startedPin("b", 500);
    cache.put("a", new byte[500]);
    cache.put("b", new byte[500]);
    cache.put("c", new byte[100]); // no room beside two full pins: c goes, a and b stay
    assertThat(cache.weightedSize()).isEqualTo(1000);
    assertThat(cache.getIfPresent("c")).isNull();
    assertThat(cache.getIfPresent("a")).hasSize(500);
    assertThat(cache.getIfPresent("b")).hasSize(500);
  }

  @Test
  void aReleasedPinLeavesNoPlaceholderAndItsBytesBecomeEvictable() {
    Pin p = startedPin("gone", 300);
    p.release();
    assertThat(p.state()).isEqualTo(State.RELEASED);
    assertThat(cache.pinnedBytes()).isZero();
    assertThat(cache.register("gone", reads::add)).isNotNull(); // no placeholder left behind

    Pin q = startedPin("kept", 300);
    cache.put("kept", new byte[300]);
    q.release();
    cache.put("big", new byte[900]);
    assertThat(cache.getIfPresent("kept")).isNull();
    assertThat(reads).isEmpty(); // a release is no read
  }

  @Test
  void removingAPinnedEntryReturnsItsReservation() {
    Pin p = startedPin("k", 400);
    byte[] v = new byte[400];
    cache.put("k", v);
    cache.remove("k", v);
    assertThat(cache.getIfPresent("k")).isNull();
    assertThat(p.state()).isEqualTo(State.RELEASED);
    assertThat(cache.pinnedBytes()).isZero();
    assertThat(cache.weightedSize()).isZero();
    assertThat(reads).isEmpty();
  }

  @Test
  void nothingToPinWhenTheBytesAreCachedOrTheCacheKeepsNothing() {
    cache.put("k", new byte[5]);
    assertThat(cache.register("k", reads::add)).isNull();
    assertThat(ClaimCache.<String>bytesBounded(0).register("k", reads::add)).isNull();
  }

  @Test
  void aPendingPinWhoseKeyIsFetchedByOthersIsGone() {
    Pin p = cache.register("k", reads::add);
    cache.put("k", new byte[5]); // another consumer's fetch
    assertThat(p.start(5)).isEqualTo(Start.GONE);
    assertThat(cache.getIfPresent("k")).hasSize(5);
    assertThat(cache.pinnedBytes()).isZero();
  }

  @Test
  void aClaimLargerThanTheWholeCacheIsNeverPinnedSoItCannotBlockTheOthers() {
    Pin p = cache.register("huge", reads::add);
    assertThat(p.start(1001)).isEqualTo(Start.GONE);
    assertThat(p.state()).isEqualTo(State.RELEASED);
    assertThat(cache.pinnedBytes()).isZero();
  }
}
