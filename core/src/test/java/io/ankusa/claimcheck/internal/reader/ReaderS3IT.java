package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reader against a real S3 server (S3Proxy) behind a fault proxy: a store that throttles above
 * a concurrency drives the adaptive limit down and, once it stops, back up to the ceiling; a hung
 * store answers callers "unavailable: deadline" at their deadline, and its late answer still fills
 * the cache.
 */
class ReaderS3IT {

  private static EmbeddedS3 s3;
  private static FaultProxy proxy;
  private static String bucket;
  private final List<ClaimCheck> opened = new ArrayList<>();

  @BeforeAll
  static void servers() {
    s3 = EmbeddedS3.shared();
    bucket = s3.createBucket("reader-" + ThreadLocalRandom.current().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @AfterEach
  void clear() {
    proxy.clear();
    opened.forEach(ClaimCheck::close);
  }

  private ClaimCheck open(int maxInflight, long cacheBytes, long opDeadlineMs) {
    Map<String, Object> m = s3.claimCheckConfig("s3://" + bucket, proxy.endpoint());
    m.put("claimcheck.read.max.inflight", maxInflight);
    m.put("claimcheck.cache.max.bytes", cacheBytes);
    m.put("claimcheck.store.op.deadline.ms", opDeadlineMs);
    m.put("claimcheck.tenant", "reader-it");
    ClaimCheck cc = ClaimCheck.open(m);
    opened.add(cc);
    return cc;
  }

  private static byte[] value(int i) {
    byte[] b = new byte[2048];
    new Random(i).nextBytes(b);
    return b;
  }

  private static long in(ClaimCheck cc, Duration d) {
    return cc.ticker().read() + d.toNanos();
  }

  @Test
  void throttlingStoreDrivesTheLimitDownThenBackUpToTheCeiling() throws Exception {
    int ceiling = 32;
    ClaimCheck cc = open(ceiling, 0, 5000);
    List<ClaimRef> refs = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      refs.add(cc.checkIn(value(i)));
    }
    proxy.throttleAbove(4);
    AtomicInteger minLimit = new AtomicInteger(ceiling);
    AtomicLong wrong = new AtomicLong();
    AtomicLong throttled = new AtomicLong();
    hammer(cc, refs, 16, Duration.ofSeconds(3), minLimit, wrong, throttled);
    assertThat(minLimit.get()).as("limit under throttling").isLessThanOrEqualTo(8);
    // Throttled reads are now retried inside their 5 s deadline, so few or no callers fail: the
    // limit's fall above is the evidence of throttling.
    System.out.println("callers failed UNAVAILABLE while the store throttled: " + throttled.get());

    proxy.clear();
    hammer(cc, refs, 16, Duration.ofSeconds(20), null, wrong, throttled, ceiling);
    assertThat(ReaderAccess.of(cc).stats().get(0).limit())
        .as("limit after recovery")
        .isEqualTo(ceiling);
    assertThat(wrong.get()).as("wrong bytes").isZero();
  }

  private static void hammer(
      ClaimCheck cc,
      List<ClaimRef> refs,
      int threads,
      Duration forAtMost,
      AtomicInteger minLimit,
      AtomicLong wrong,
      AtomicLong throttled,
      int... stopAtLimit)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long end = System.nanoTime() + forAtMost.toNanos();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      futures.add(
          pool.submit(
              () -> {
                Random r = new Random(seed);
                while (System.nanoTime() < end) {
                  int limit = ReaderAccess.of(cc).stats().get(0).limit();
                  if (minLimit != null) {
                    minLimit.accumulateAndGet(limit, Math::min);
                  }
                  if (stopAtLimit.length > 0 && limit >= stopAtLimit[0]) {
                    return null;
                  }
                  int i = r.nextInt(refs.size());
                  try {
                    byte[] got = cc.redeem(refs.get(i), in(cc, Duration.ofSeconds(5))).join();
                    if (!java.util.Arrays.equals(got, value(i))) {
                      wrong.incrementAndGet();
                    }
                  } catch (CompletionException e) {
                    ClaimCheckFailure f = (ClaimCheckFailure) e.getCause();
                    assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE);
                    throttled.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void hungStoreFailsCallersAtTheirDeadlineAndItsLateAnswerFillsTheCache() {
    ClaimCheck cc = open(8, 1 << 20, 20_000);
    ClaimRef ref = cc.checkIn(value(1));
    proxy.resetCounts();
    proxy.hang(Duration.ofMillis(4000));
    long t0 = System.nanoTime();
    try {
      cc.redeem(ref, in(cc, Duration.ofMillis(700))).join();
      throw new AssertionError("expected the deadline to pass");
    } catch (CompletionException e) {
      ClaimCheckFailure f = (ClaimCheckFailure) e.getCause();
      assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE);
      assertThat(f.getMessage()).contains("deadline");
    }
    Duration waited = Duration.ofNanos(System.nanoTime() - t0);
    // At the deadline, give or take a loaded machine's scheduling; well before the 4 s answer.
    assertThat(waited).isBetween(Duration.ofMillis(650), Duration.ofMillis(2500));

    // The store request outlives its caller, completes, and fills the cache: the retry is a hit.
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    byte[] got = null;
    while (got == null && System.nanoTime() < until) {
      try {
        got = cc.redeem(ref, in(cc, Duration.ofMillis(200))).join();
      } catch (CompletionException e) {
        // still hung: the same in-flight request is joined, no new GET is sent
      }
    }
    assertThat(got).isEqualTo(value(1));
    assertThat(proxy.requestCount("GET")).isEqualTo(1);
  }
}
