package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import io.ankusa.claimcheck.time.Ticker;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one lifecycle of the serializer, the deserializer and the Connect transforms. */
class PluginLifecycleTest {

  private final String store = "lifecycle-" + UUID.randomUUID();
  private final PluginLifecycle<ClaimCheck> lifecycle = new PluginLifecycle<>("Plug", "companion");

  @AfterEach
  void forget() {
    lifecycle.close();
    MemoryStores.forget(store);
  }

  private Map<String, Object> configs() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "memory:" + store);
    m.put("claimcheck.tenant", "acme");
    return m;
  }

  private void open(AutoCloseable companion) {
    lifecycle.open(
        new ClaimCheckConfig(configs()), configs(), Ticker.system(), companion, cc -> cc);
  }

  /** Counts its closes. */
  private static final class Companion implements AutoCloseable {
    final AtomicInteger closes = new AtomicInteger();

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }

  @Test
  void usedBeforeConfigureOrAfterCloseItSaysSo() {
    assertThatThrownBy(lifecycle::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Plug is not configured: call configure() first");
    open(null);
    assertThat(lifecycle.get().checkIn(new byte[10])).isNotNull();
    lifecycle.close();
    assertThatThrownBy(lifecycle::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Plug is closed");
  }

  @Test
  void configuredAgainItClosesTheEarlierCompanionUnlessKept() {
    Companion first = new Companion();
    Companion kept = new Companion();
    open(first);
    open(kept);
    assertThat(first.closes).hasValue(1);
    open(kept); // a given inner serde configured again: the same companion
    assertThat(kept.closes).hasValue(0);
    lifecycle.close();
    lifecycle.close();
    assertThat(kept.closes).hasValue(1);
    assertThat(first.closes).hasValue(1);
  }

  @Test
  void closedBeforeConfigureItClosesTheUnconfiguredCompanionAndStaysClosed() {
    Companion given = new Companion();
    lifecycle.close(given);
    assertThat(given.closes).hasValue(1);
    open(given); // configured after close: released at once, the given companion not twice
    assertThat(given.closes).hasValue(1);
    Companion other = new Companion();
    open(other);
    assertThat(other.closes).hasValue(1);
    assertThatThrownBy(lifecycle::get).hasMessage("Plug is closed");
  }

  @Test
  void aFailedOpenClosesTheCompanionAndKeepsTheEarlierState() {
    open(null);
    ClaimCheck before = lifecycle.get();
    Companion companion = new Companion();
    assertThatThrownBy(
            () ->
                lifecycle.open(
                    new ClaimCheckConfig(configs()),
                    configs(),
                    Ticker.system(),
                    companion,
                    cc -> {
                      throw new IllegalArgumentException("bad setting");
                    }))
        .hasMessage("bad setting");
    assertThat(companion.closes).hasValue(1);
    assertThat(lifecycle.get()).isSameAs(before);
  }
}
