package io.ankusa.claimcheck.internal.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Stores seed's failover, breaker, 403, throttle, hang and not-found-versus-unavailable
 * behaviours again, against a real S3 server (S3Proxy) with a fault-injecting proxy (WireMock) in
 * front of each of two stores. {@code StoresSeedTest} proves every sentence with in-memory stores.
 */
class FailoverS3IT {

  private static final String TENANT = "acme";
  private static final Duration OP = Duration.ofMillis(3000);
  private static EmbeddedS3 s3;
  private static FaultProxy proxyA;
  private static FaultProxy proxyB;
  private static String bucketA;
  private static String bucketB;

  private final List<ClaimStores> opened = new ArrayList<>();
  private ClaimStores stores;

  @BeforeAll
  static void servers() {
    s3 = EmbeddedS3.shared();
    bucketA = s3.createBucket("failover-a-" + ThreadLocalRandom.current().nextInt(1_000_000));
    bucketB = s3.createBucket("failover-b-" + ThreadLocalRandom.current().nextInt(1_000_000));
    proxyA = FaultProxy.inFrontOf(s3);
    proxyB = FaultProxy.inFrontOf(s3);
  }

  @AfterAll
  static void stopProxies() {
    proxyA.close();
    proxyB.close();
  }

  @BeforeEach
  void twoStores() {
    stores = open(Placement.ORDERED);
  }

  @AfterEach
  void clear() {
    proxyA.clear();
    proxyB.clear();
    if (!proxyA.isUp()) {
      proxyA.up();
    }
    opened.forEach(ClaimStores::close);
  }

  private ClaimStores open(Placement placement) {
    ClaimStores s =
        ClaimStores.builder()
            .placement(placement)
            .layout(KeyLayout.FLAT)
            .cooldown(Duration.ofSeconds(60))
            .add(store(proxyA, bucketA), OP)
            .add(store(proxyB, bucketB), OP)
            .build();
    opened.add(s);
    proxyA.resetCounts();
    proxyB.resetCounts();
    return s;
  }

  private static ClaimStore store(FaultProxy proxy, String bucket) {
    return new ClaimCheckConfig(
            java.util.Map.of(
                ClaimCheckConfig.STORES,
                "s3://" + bucket,
                "claimcheck.s3.endpoint",
                proxy.endpoint().toString(),
                "claimcheck.s3.region",
                s3.region(),
                "claimcheck.s3.path.style.access",
                "true",
                "claimcheck.s3.access.key.id",
                s3.accessKey(),
                "claimcheck.s3.secret.access.key",
                s3.secretKey(),
                ClaimCheckConfig.OP_DEADLINE_MS,
                String.valueOf(OP.toMillis()),
                // A refused connection the SDK's pool loses costs connect + 1 s (the acquisition
                // bound):
                // keep that well inside OP, so a down home store always leaves time to fail over,
                // as
                // README's "op.deadline.ms leaves room for failover" advice says.
                "claimcheck.s3.connect.timeout.ms",
                "500"))
        .stores()
        .get(0)
        .open();
  }

  private static long id() {
    return ThreadLocalRandom.current().nextLong();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static long readDeadline() {
    return System.nanoTime() + Duration.ofSeconds(20).toNanos();
  }

  private static StoreException failure(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return StoreException.of(e);
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void homeDownFailsOverAndOpensItsBreaker() {
    proxyA.down();
    long id = id();
    assertThat(stores.write(TENANT, id, bytes("p1"), stores.writeDeadline()).join()).isEqualTo(1);
    assertThat(stores.breaker(0).isOpen()).isTrue();
    proxyB.resetCounts();
    long id2 = id();
    assertThat(stores.write(TENANT, id2, bytes("p2"), stores.writeDeadline()).join()).isEqualTo(1);
    ClaimStores.Located found = stores.read(TENANT, id, 0, 10, readDeadline()).join();
    assertThat(found.bytes()).isEqualTo(bytes("p1"));
    assertThat(found.store()).isEqualTo(1);
  }

  @Test
  void throttledHomeFailsOverWithoutOpeningItsBreaker() {
    proxyA.throttle503SlowDown(Duration.ofSeconds(1));
    assertThat(stores.write(TENANT, id(), bytes("t"), stores.writeDeadline()).join()).isEqualTo(1);
    assertThat(stores.breaker(0).isOpen()).isFalse();
    assertThat(stores.write(TENANT, id(), bytes("t2"), stores.writeDeadline()).join()).isEqualTo(1);
    assertThat(proxyA.requestCount("PUT")).isEqualTo(2); // still tried first
  }

  @Test
  void forbiddenStoreIsAskedAgainAtTheOtherLayout() {
    long id = id();
    stores.write(TENANT, id, bytes("f"), stores.writeDeadline()).join(); // store 0
    proxyA.resetCounts();
    proxyA.forbidden403();
    StoreException e = failure(stores.read(TENANT, id, 0, 1, readDeadline()));
    assertThat(e.kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(proxyA.requestCount("GET")).isEqualTo(2);
    assertThat(stores.breaker(0).isOpen()).isFalse();
  }

  @Test
  void hungStoreCostsOneReadItsTimeoutOnceThenHealthyStoresGoFirst() {
    long id = id();
    stores.write(TENANT, id, bytes("h"), stores.writeDeadline()).join(); // store 0
    ClaimStores twoHomes = open(Placement.ORDERED);
    // Put a copy in store 1 too, the way a failover would have.
    store(proxyB, bucketB).putIfAbsent(KeyLayout.FLAT.key(TENANT, id), bytes("h"), OP).join();
    proxyA.hang(Duration.ofSeconds(10));
    long t0 = System.nanoTime();
    assertThat(twoHomes.read(TENANT, id, 0, 1, readDeadline()).join().store()).isEqualTo(1);
    Duration first = Duration.ofNanos(System.nanoTime() - t0);
    assertThat(first).isBetween(OP.minusMillis(100), OP.multipliedBy(2).minusMillis(100));
    long t1 = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      assertThat(twoHomes.read(TENANT, id, 0, 1, readDeadline()).join().store()).isEqualTo(1);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t1)).isLessThan(OP);
    assertThat(proxyA.requestCount("GET")).isEqualTo(1);
  }

  @Test
  void notFoundOnlyWhenEveryStoreAnswered() {
    long missing = id();
    assertThat(failure(stores.read(TENANT, missing, 0, 1, readDeadline())).kind())
        .isEqualTo(Kind.NOT_FOUND);
    proxyB.reset();
    StoreException e = failure(stores.read(TENANT, missing, 0, 1, readDeadline()));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e.getMessage()).contains(bucketB);
  }

  @Test
  void everyStoreDownFailsTheWriteNamingEachStore() {
    proxyA.down();
    proxyB.reset();
    StoreException e = failure(stores.write(TENANT, id(), bytes("x"), stores.writeDeadline()));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e.getMessage())
        .contains("store 0")
        .contains("store 1")
        .contains(bucketA)
        .contains(bucketB);
  }

  @Test
  void racingWritersOnOnePackIdHaveExactlyOneWinner() throws Exception {
    int writers = 16;
    long id = id();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        byte[] mine = bytes("writer-" + w);
        ClaimStores s = open(Placement.ORDERED);
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  try {
                    s.write(TENANT, id, mine, s.writeDeadline()).join();
                    return 1;
                  } catch (CompletionException e) {
                    assertThat(StoreException.of(e).kind()).isEqualTo(Kind.ALREADY_EXISTS);
                    return 0;
                  }
                }));
      }
      go.countDown();
      int winners = 0;
      for (Future<Integer> f : results) {
        winners += f.get();
      }
      assertThat(winners).isEqualTo(1);
      byte[] stored = stores.read(TENANT, id, 0, 100, readDeadline()).join().bytes();
      assertThat(new String(stored, StandardCharsets.UTF_8)).startsWith("writer-");
    } finally {
      pool.shutdownNow();
    }
  }
}
