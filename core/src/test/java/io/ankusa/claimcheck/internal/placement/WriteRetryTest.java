package io.ankusa.claimcheck.internal.placement;

import static io.ankusa.claimcheck.store.memory.MemoryStore.Op.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Check-in retries (issue 8 §1): when every store throttles or cannot answer, the failover writer
 * tries the round again inside the write deadline; in-memory stores, a driven clock, and a
 * scheduler that spends each wait by advancing it. With jitter 0.5 the n-th wait is half its
 * ceiling min(2 s, 50 ms * 2^(n-1)).
 */
class WriteRetryTest {

  static final Backoff HALF_JITTER =
      new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2), () -> 0.5);
  private static final String TENANT = "acme";
  private static final byte[] PACK = "pack".getBytes(StandardCharsets.UTF_8);
  private static final Duration OP = Duration.ofSeconds(2);

  private final FakeTicker ticker = new FakeTicker();

  /** A scheduler that spends {@code delay} on {@code ticker} and runs the task at once. */
  static ReaderScheduler spending(FakeTicker ticker) {
    return (task, delay) -> {
      ticker.advance(Duration.ofNanos(delay));
      task.run();
      return () -> {};
    };
  }

  private MemoryStore mem(String name) {
    return MemoryStores.create(name, ticker.hangClock());
  }

  private ClaimStores stores(ClaimStore... stores) {
    ClaimStores.Builder b =
        ClaimStores.builder().ticker(ticker).scheduler(spending(ticker)).retry(HALF_JITTER);
    for (ClaimStore s : stores) {
      b.add(s, OP);
    }
    return b.build();
  }

  private long elapsedSince(long t0) {
    return ticker.read() - t0;
  }

  private static StoreException failure(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return StoreException.of(e);
    }
    throw new AssertionError("expected a failure");
  }

  /** Throttles its first {@code times} puts with a Retry-After, then behaves like {@code inner}. */
  private static ClaimStore throttling(MemoryStore inner, int times, Duration retryAfter) {
    AtomicInteger left = new AtomicInteger(times);
    return new ClaimStore() {
      @Override
      public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
        if (left.getAndDecrement() > 0) {
          return CompletableFuture.failedFuture(
              new StoreException(
                  Kind.THROTTLED,
                  "SlowDown (Retry-After " + retryAfter.toSeconds() + " s)",
                  retryAfter,
                  null));
        }
        return inner.putIfAbsent(key, bytes, timeout);
      }

      @Override
      public CompletableFuture<byte[]> getRange(
          String key, long offset, int length, Duration timeout) {
        return inner.getRange(key, offset, length, timeout);
      }

      @Override
      public CompletableFuture<Void> delete(String key, Duration timeout) {
        return inner.delete(key, timeout);
      }

      @Override
      public String describe() {
        return "throttling:" + inner.describe();
      }

      @Override
      public void close() {}
    };
  }

  @Test
  void everyStoreThrottlingBrieflyIsRetriedAndTheWriteSucceeds() {
    MemoryStore a = mem("a");
    MemoryStore b = mem("b");
    a.failTimes(PUT, Kind.THROTTLED, 2);
    b.failTimes(PUT, Kind.THROTTLED, 2);
    ClaimStores s = stores(a, b);
    long t0 = ticker.read();
    assertThat(s.write(TENANT, 1, PACK, s.writeDeadline()).join()).isZero();
    assertThat(elapsedSince(t0)).as("waits of 25 and 50 ms").isEqualTo(75_000_000L);
    assertThat(a.count(PUT)).isEqualTo(3);
    assertThat(b.count(PUT)).isEqualTo(2);
    assertThat(s.breaker(0).isOpen()).isFalse();
    assertThat(s.breaker(1).isOpen()).isFalse();
  }

  @Test
  void anOnlyStoreThatCouldNotAnswerOnceIsRetried() {
    MemoryStore a = mem("a");
    a.failTimes(PUT, Kind.UNAVAILABLE, 1);
    ClaimStores s = stores(a);
    assertThat(s.write(TENANT, 1, PACK, s.writeDeadline()).join()).isZero();
    assertThat(a.count(PUT)).isEqualTo(2);
    assertThat(s.breaker(0).isOpen()).as("its answer closed the breaker again").isFalse();
  }

  @Test
  void theSmallestRetryAfterOfEveryStoreIsHonoured() {
    MemoryStore a = mem("a");
    MemoryStore b = mem("b");
    ClaimStores s =
        stores(throttling(a, 1, Duration.ofSeconds(2)), throttling(b, 1, Duration.ofSeconds(1)));
    long t0 = ticker.read();
    assertThat(s.write(TENANT, 1, PACK, s.writeDeadline() + Duration.ofSeconds(3).toNanos()).join())
        .isZero();
    assertThat(elapsedSince(t0)).as("1 s Retry-After + 25 ms of jitter").isEqualTo(1_025_000_000L);
  }

  @Test
  void aRetryAfterPastTheDeadlineIsNotWaitedFor() {
    MemoryStore a = mem("a");
    ClaimStores s = stores(throttling(a, 1, Duration.ofSeconds(60)));
    long t0 = ticker.read();
    assertThat(s.write(TENANT, 1, PACK, s.writeDeadline()).join()).isZero();
    assertThat(elapsedSince(t0)).as("the plain 25 ms backoff").isEqualTo(25_000_000L);
  }

  @Test
  void aStoreThrottlingPastTheDeadlineFailsAtTheDeadlineNotLater() {
    MemoryStore a = mem("a");
    MemoryStore b = mem("b");
    a.failAlways(PUT, Kind.THROTTLED);
    b.failAlways(PUT, Kind.UNAVAILABLE);
    ClaimStores s = stores(a, b);
    long t0 = ticker.read();
    long deadline = s.writeDeadline();
    StoreException e = failure(s.write(TENANT, 1, PACK, deadline));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(ticker.read()).as("never past the deadline").isLessThanOrEqualTo(deadline);
    // Rounds at 0, 25, 75, 175, 375, 775 and 1575 ms; the next wait (1 s) would start the eighth
    // round past the 2 s deadline, so the write fails after the seventh.
    assertThat(elapsedSince(t0)).isEqualTo(1_575_000_000L);
    assertThat(a.count(PUT)).isEqualTo(7);
    assertThat(e.getMessage())
        .contains("in 7 rounds")
        .contains("store 0 (faulty:a) THROTTLED")
        .contains("store 1 (faulty:b) UNAVAILABLE");
    assertThat(s.breaker(0).isOpen()).as("throttling never opens it").isFalse();
    assertThat(s.breaker(1).isOpen()).isTrue();
  }

  @Test
  void aRoundThatStartsPastTheDeadlineKeepsEachStoresLastReason() {
    // Regression (StoreInitCommandTest on a loaded CI machine): a retry timer that fired after the
    // write deadline made its round "not tried", and the failure lost the store's own reason.
    MemoryStore a = mem("a");
    a.failAlways(PUT, Kind.UNAVAILABLE);
    ReaderScheduler late =
        (task, delay) -> {
          ticker.advance(Duration.ofNanos(delay).plusMillis(500)); // each timer fires 500 ms late
          task.run();
          return () -> {};
        };
    ClaimStores s =
        ClaimStores.builder().ticker(ticker).scheduler(late).retry(HALF_JITTER).add(a, OP).build();
    long deadline = s.writeDeadline();
    StoreException e = failure(s.write(TENANT, 1, PACK, deadline));
    assertThat(ticker.read())
        .as("the last round started past the deadline")
        .isGreaterThan(deadline);
    assertThat(a.count(PUT)).as("tried in earlier rounds").isGreaterThan(1);
    assertThat(e.getMessage())
        .contains("store 0 (faulty:a) UNAVAILABLE")
        .doesNotContain("not tried");
  }

  @Test
  void aForbiddenStoreInTheRoundEndsTheWriteAtOnce() {
    MemoryStore a = mem("a");
    MemoryStore b = mem("b");
    a.failAlways(PUT, Kind.THROTTLED);
    b.failAlways(PUT, Kind.FORBIDDEN);
    ClaimStores s = stores(a, b);
    long t0 = ticker.read();
    StoreException e = failure(s.write(TENANT, 1, PACK, s.writeDeadline()));
    assertThat(e.getMessage()).doesNotContain("rounds").contains("FORBIDDEN");
    assertThat(elapsedSince(t0)).isZero();
    assertThat(a.count(PUT)).isEqualTo(1);
  }

  @Test
  void aCollisionIsNeverRetried() {
    MemoryStore a = mem("a");
    ClaimStores s = stores(a);
    s.write(TENANT, 1, PACK, s.writeDeadline()).join();
    assertThat(failure(s.write(TENANT, 1, PACK, s.writeDeadline())).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(a.count(PUT)).isEqualTo(2);
  }
}
