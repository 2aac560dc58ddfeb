package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck.RequestPermit;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ClaimCheck#admitRequest}: the shared request gate, permits any thread gives back. */
class RequestPermitTest {

  private final String store = "permit-" + UUID.randomUUID();

  @AfterEach
  void forget() {
    MemoryStores.forget(store);
  }

  private Map<String, Object> config(int maxConcurrent) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + store);
    m.put("claimcheck.max.concurrent.reads", maxConcurrent);
    m.put(ClaimCheck.METER_REGISTRY, new SimpleMeterRegistry());
    return m;
  }

  @Test
  void aFullGateRefusesAPermitAndAnotherThreadGivesItBack() {
    try (ClaimCheck cc = ClaimCheck.open(config(1))) {
      RequestPermit held = cc.admitRequest();
      assertThat(held).isNotNull();
      assertThat(cc.admitRequest()).as("the gate holds one request").isNull();

      CompletableFuture.runAsync(held::close).join(); // released on another thread
      held.close(); // idempotent: must not free a second slot

      RequestPermit next = cc.admitRequest();
      assertThat(next).isNotNull();
      assertThat(cc.admitRequest()).as("closing twice freed one slot, not two").isNull();
      next.close();
    }
  }

  @Test
  void aPermitCountsAtTheGateTheBlockingRedeemUses() {
    try (ClaimCheck cc = ClaimCheck.open(config(1))) {
      var ref = cc.checkIn(new byte[] {1, 2, 3});
      long deadline = cc.ticker().read() + Duration.ofSeconds(5).toNanos();
      try (RequestPermit held = cc.admitRequest()) {
        assertThat(held).isNotNull();
        assertThatThrownBy(() -> cc.redeemBlocking(ref, deadline))
            .isInstanceOfSatisfying(
                ClaimCheckFailure.class,
                f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE));
      }
      assertThat(cc.redeemBlocking(ref, deadline)).containsExactly(1, 2, 3);
    }
  }

  @Test
  void anUnboundedGateAdmitsEveryRequest() {
    try (ClaimCheck cc = ClaimCheck.open(config(0))) {
      for (int i = 0; i < 100; i++) {
        assertThat(cc.admitRequest()).isNotNull();
      }
    }
  }
}
