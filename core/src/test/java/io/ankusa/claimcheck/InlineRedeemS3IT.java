package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The drop-in redeem ({@link ClaimCheck#redeemBlocking}, which lets its own store request run on
 * the calling thread) against S3Proxy behind the fault proxy keeps every guarantee of the reader:
 * coalescing, deadlines with the late answer filling the cache, retries inside the deadline, the
 * store's limit; and the check-in beside it.
 */
class InlineRedeemS3IT {

  private static EmbeddedS3 s3;
  private static FaultProxy proxy;
  private static String bucket;
  private final List<ClaimCheck> opened = new ArrayList<>();

  @BeforeAll
  static void servers() {
    s3 = EmbeddedS3.shared();
    bucket = s3.createBucket("inline-" + ThreadLocalRandom.current().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @AfterEach
  void clear() {
    proxy.clear();
    proxy.resetCounts();
    opened.forEach(ClaimCheck::close);
    opened.clear();
  }

  private ClaimCheck open(int maxInflight, long cacheBytes, long opDeadlineMs) {
    Map<String, Object> m = s3.claimCheckConfig("s3://" + bucket, proxy.endpoint());
    m.put("claimcheck.read.max.inflight", maxInflight);
    m.put("claimcheck.cache.max.bytes", cacheBytes);
    m.put("claimcheck.store.op.deadline.ms", opDeadlineMs);
    m.put("claimcheck.tenant", "inline-it");
    ClaimCheck cc = ClaimCheck.open(m);
    opened.add(cc);
    return cc;
  }

  private static byte[] value(int i) {
    byte[] b = new byte[64 * 1024];
    new Random(i).nextBytes(b);
    return b;
  }

  private static long in(ClaimCheck cc, Duration d) {
    return cc.ticker().read() + d.toNanos();
  }

  @Test
  void sixteenThreadsRedeemingOneRefFiftyTimesEachCostOneGet() throws Exception {
    ClaimCheck cc = open(64, 8 << 20, 10_000);
    ClaimRef ref = cc.checkIn(value(1));
    assertThat(proxy.requestCount("PUT")).isEqualTo(1);
    proxy.resetCounts();
    proxy.inject(Fault.hang(Duration.ofMillis(300)), "GET"); // so the first redeems overlap
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger wrong = new AtomicInteger();
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      done.add(
          pool.submit(
              () -> {
                go.await();
                for (int i = 0; i < 50; i++) {
                  byte[] got = cc.redeemBlocking(ref, in(cc, Duration.ofSeconds(20)));
                  if (!Arrays.equals(got, value(1))) {
                    wrong.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    go.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(wrong.get()).isZero();
    assertThat(proxy.requestCount("GET")).as("GETs for 16 x 50 redeems of one ref").isEqualTo(1);
  }

  @Test
  void aHungStoreFailsTheRedeemAtItsDeadlineAndTheLateAnswerFillsTheCache() {
    ClaimCheck cc = open(8, 1 << 20, 20_000);
    ClaimRef ref = cc.checkIn(value(2));
    proxy.resetCounts();
    proxy.hang(Duration.ofMillis(4000));
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> cc.redeemBlocking(ref, in(cc, Duration.ofMillis(700))))
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class,
            f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE));
    Duration waited = Duration.ofNanos(System.nanoTime() - t0);
    // At the deadline, give or take a loaded machine's scheduling; well before the 4 s answer.
    assertThat(waited).isBetween(Duration.ofMillis(650), Duration.ofMillis(2500));
    assertThat(Thread.currentThread().isInterrupted()).isFalse();

    // The inline GET was cut at the caller's deadline; the rest of it went on asynchronously and
    // its late answer fills the cache: retries join it (no new GET) and then hit.
    long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    byte[] got = null;
    while (got == null && System.nanoTime() < until) {
      try {
        got = cc.redeemBlocking(ref, in(cc, Duration.ofMillis(300)));
      } catch (ClaimCheckFailure e) {
        assertThat(e.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE);
      }
    }
    assertThat(got).isEqualTo(value(2));
    assertThat(proxy.requestCount("GET")).as("the inline GET and its rest").isEqualTo(2);
  }

  @Test
  void aThrottledRedeemIsRetriedInsideItsDeadline() {
    ClaimCheck cc = open(8, 0, 5_000);
    ClaimRef ref = cc.checkIn(value(3));
    proxy.resetCounts();
    proxy.failTimes(2, Fault.slowDown(Duration.ofMillis(100)), "GET");
    assertThat(cc.redeemBlocking(ref, in(cc, Duration.ofSeconds(10)))).isEqualTo(value(3));
    assertThat(proxy.requestCount("GET")).isEqualTo(3);
    assertThat(ReaderAccess.of(cc).stats().get(0).inflight()).isZero();
  }

  @Test
  void inlineRedeemsKeepToTheStoresLimit() throws Exception {
    ClaimCheck cc = open(2, 0, 10_000);
    List<ClaimRef> refs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      refs.add(cc.checkIn(value(10 + i)));
    }
    proxy.resetCounts();
    proxy.inject(Fault.hang(Duration.ofMillis(200)), "GET");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    AtomicInteger most = new AtomicInteger();
    List<Future<byte[]>> got = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      ClaimRef ref = refs.get(i);
      got.add(pool.submit(() -> cc.redeemBlocking(ref, in(cc, Duration.ofSeconds(30)))));
    }
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!got.stream().allMatch(Future::isDone) && System.nanoTime() < until) {
      most.accumulateAndGet(proxy.inFlight(), Math::max);
      Thread.sleep(5);
    }
    for (int i = 0; i < 8; i++) {
      assertThat(got.get(i).get()).isEqualTo(value(10 + i));
    }
    pool.shutdown();
    assertThat(most.get()).as("GETs in flight at once, limit 2").isLessThanOrEqualTo(2);
    assertThat(proxy.requestCount("GET")).isEqualTo(8);
  }
}
