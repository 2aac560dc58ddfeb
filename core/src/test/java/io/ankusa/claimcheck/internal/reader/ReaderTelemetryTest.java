package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.MicrometerTelemetry;
import io.ankusa.claimcheck.store.StoreException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The reader's telemetry through Micrometer, and a broken sink that must not break reads. */
class ReaderTelemetryTest extends ReaderTestSupport {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private double reads(int store, String outcome) {
    var c =
        registry
            .find("claimcheck.read")
            .tag("store", Integer.toString(store))
            .tag("outcome", outcome)
            .counter();
    return c == null ? 0 : c.count();
  }

  private double gauge(String name, int store) {
    return registry.get(name).tag("store", Integer.toString(store)).gauge().value();
  }

  @Test
  void readsLimitsAndStoreStateReachTheRegistry() {
    reader(b -> b.maxInflight(4).queueMax(1).telemetry(MicrometerTelemetry.of(registry)));
    CompletableFuture<byte[]> a = fetch(key(1));
    fetch(key(1), 1, in(THIRTY_S)); // coalesced, charged to its own store
    fetch(key(2));
    fetch(key(3));
    fetch(key(4));
    fetch(key(5)); // queued
    assertRead(fetch(key(6)), ReadException.Reason.OVERLOADED);
    store.fail(1, StoreException.Kind.THROTTLED); // key 2 backs off; the limit halves to 2
    store.answer(0, bytes("x"));
    assertValue(a, "x");
    assertThat(reads(0, "store")).as("key 2 is still retrying: counted when it ends").isEqualTo(1);
    assertThat(gauge("claimcheck.read.limit", 0)).as("limit change").isEqualTo(2);
    scheduler.advance(Duration.ofSeconds(1)); // key 2's retry finds no slot and a full queue
    assertThat(reads(0, "store")).isEqualTo(2);
    assertThat(reads(1, "coalesced")).isEqualTo(1);
    assertThat(reads(0, "shed")).isEqualTo(1);
    assertThat(gauge("claimcheck.read.inflight", 0)).isEqualTo(2);
    assertThat(gauge("claimcheck.read.queued", 0)).isEqualTo(1);
    assertThat(registry.find("claimcheck.read.limit").tag("store", "1").gauge())
        .as("store 1 was never read from")
        .isNull();
  }

  @Test
  void aThrowingSinkDoesNotBreakReads() {
    reader(b -> b.maxInflight(2).queueMax(0).telemetry(new ThrowingSink()));
    CompletableFuture<byte[]> a = fetch(key(1));
    CompletableFuture<byte[]> joined = fetch(key(1));
    fetch(key(2));
    assertRead(fetch(key(3)), ReadException.Reason.OVERLOADED);
    store.fail(1, StoreException.Kind.THROTTLED);
    store.answer(0, bytes("x"));
    assertValue(a, "x");
    assertValue(joined, "x");
    scheduler.advance(Duration.ofSeconds(2)); // key 2's retry starts
    store.answer(2, bytes("y"));
    assertThat(reader.stats().get(0))
        .as("halved to 1, then one success grew it to 2")
        .isEqualTo(new StoreStats(2, 0, 0));
    assertThat(telemetry.totalReads()).as("the recording sink was not used here").isZero();
    assertValue(reader.fetch(key(1), 0, never(), in(THIRTY_S)), "x");
  }

  /** Every event throws. */
  private static final class ThrowingSink implements ClaimCheckTelemetry {
    @Override
    public void read(int store, ReadOutcome outcome) {
      throw new IllegalStateException("read");
    }

    @Override
    public void limitChanged(int store, int newLimit) {
      throw new IllegalStateException("limit");
    }

    @Override
    public void storeState(int store, int limit, int inflight, int queued) {
      throw new IllegalStateException("state");
    }

    @Override
    public void breakerOpened(int store) {
      throw new IllegalStateException();
    }

    @Override
    public void breakerClosed(int store) {
      throw new IllegalStateException();
    }

    @Override
    public void checkIn(CheckInOutcome outcome, int store, long nanos) {
      throw new IllegalStateException();
    }
  }
}
