package io.ankusa.claimcheck.store.s3;

import static io.ankusa.claimcheck.store.s3.S3TestStores.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The S3 store's classification of real faults, through a fault proxy in front of S3Proxy. */
class S3ClaimStoreFaultIT {

  private static final String BUCKET = "store-s3-fault-it";
  private static final Duration OP_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration T = Duration.ofSeconds(5);
  private static final byte[] BYTES = "stored".getBytes(StandardCharsets.UTF_8);

  private static FaultProxy proxy;
  private static ClaimStore store;

  @BeforeAll
  static void start() {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    s3.createBucket(BUCKET);
    proxy = FaultProxy.inFrontOf(s3);
    // Seeded directly, with time to spare for a cold JVM; the store under test goes via the proxy.
    try (ClaimStore direct =
        S3TestStores.store(
            s3, s3.endpoint(), "s3://" + BUCKET + "/faults", Duration.ofSeconds(30))) {
      direct.putIfAbsent("present", BYTES, Duration.ofSeconds(30)).join();
    }
    store = S3TestStores.store(s3, proxy.endpoint(), "s3://" + BUCKET + "/faults", OP_TIMEOUT);
  }

  @AfterAll
  static void stop() {
    store.close();
    proxy.close();
  }

  @AfterEach
  void passThrough() {
    proxy.clear();
    proxy.resetCounts();
  }

  @Test
  void passThroughWorks() {
    assertThat(store.getRange("present", 0, 100, T).join()).isEqualTo(BYTES);
    assertThat(proxy.requestCount("GET")).isEqualTo(1);
  }

  @Test
  void forbidden403IsForbidden() {
    proxy.forbidden403();
    assertThat(failure(store.getRange("present", 0, 100, T)).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.getRange("present", 0, 0, T)).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.putIfAbsent("new", BYTES, T)).kind()).isEqualTo(Kind.FORBIDDEN);
  }

  @Test
  void slowDown503IsThrottledWithRetryAfterAndOneAttempt() {
    proxy.throttle503SlowDown(Duration.ofSeconds(2));
    StoreException get = failure(store.getRange("present", 0, 100, T));
    assertThat(get.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(get.retryAfter()).hasValue(Duration.ofSeconds(2));
    StoreException put = failure(store.putIfAbsent("new", BYTES, T));
    assertThat(put.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(put.retryAfter()).hasValue(Duration.ofSeconds(2));
    // HEAD: a 503 without a body is still throttled.
    StoreException head = failure(store.getRange("present", 0, 0, T));
    assertThat(head.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(head.retryAfter()).hasValue(Duration.ofSeconds(2));
    // The SDK did not retry.
    assertThat(proxy.requestCount("GET")).isEqualTo(1);
    assertThat(proxy.requestCount("PUT")).isEqualTo(1);
    assertThat(proxy.requestCount("HEAD")).isEqualTo(1);
  }

  @Test
  void tooManyRequests429IsThrottled() {
    proxy.throttle429();
    StoreException e = failure(store.getRange("present", 0, 100, T));
    assertThat(e.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(e.retryAfter()).isEmpty();
  }

  @Test
  void serverError500IsUnavailable() {
    proxy.inject(Fault.serverError());
    assertThat(failure(store.getRange("present", 0, 100, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aHangLongerThanTheOperationTimeoutIsUnavailableWithinAboutTheTimeout() {
    proxy.hang(Duration.ofSeconds(5));
    long start = System.nanoTime();
    StoreException e = failure(store.getRange("present", 0, 100, T));
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e).hasMessageContaining("timed out");
    assertThat(tookMs).isBetween(OP_TIMEOUT.toMillis() - 50, OP_TIMEOUT.toMillis() + 1500);

    // A call's own, smaller timeout wins over the operation timeout.
    start = System.nanoTime();
    StoreException put = failure(store.putIfAbsent("hung", BYTES, Duration.ofMillis(300)));
    tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(put.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(tookMs).isLessThan(OP_TIMEOUT.toMillis());
  }

  @Test
  void aConnectionResetIsUnavailable() {
    proxy.reset();
    assertThat(failure(store.getRange("present", 0, 100, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.putIfAbsent("new", BYTES, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aStoreThatIsDownIsUnavailableAndWorksWhenBackUp() {
    proxy.down();
    assertThat(failure(store.getRange("present", 0, 100, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    proxy.up();
    assertThat(store.getRange("present", 0, 100, T).join()).isEqualTo(BYTES);
  }

  @Test
  void failuresThenRecoveryAreSeenOnePerCall() {
    proxy.failTimes(2, Fault.slowDown(Duration.ofSeconds(1)), "PUT");
    assertThat(failure(store.putIfAbsent("recovering", BYTES, T)).kind()).isEqualTo(Kind.THROTTLED);
    assertThat(failure(store.putIfAbsent("recovering", BYTES, T)).kind()).isEqualTo(Kind.THROTTLED);
    store.putIfAbsent("recovering", BYTES, T).join();
    assertThat(store.getRange("recovering", 0, 100, T).join()).isEqualTo(BYTES);
    assertThat(proxy.requestCount("PUT")).isEqualTo(3);
  }

  @Test
  void aCollisionThroughTheProxyIsAlreadyExists() {
    assertThat(
            failure(store.putIfAbsent("present", "other".getBytes(StandardCharsets.UTF_8), T))
                .kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(store.getRange("present", 0, 100, T).join()).isEqualTo(BYTES);
  }
}
