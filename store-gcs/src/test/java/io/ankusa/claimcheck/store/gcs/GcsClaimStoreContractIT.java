package io.ankusa.claimcheck.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreContract;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared store contract on the {@link GcsStub} (a stub of GCS's JSON API, not GCS) through the
 * fault proxy (unreachable = the proxy down), the store opened by URI scheme through the
 * configuration ({@code ServiceLoader}); and the GCS store's hostile answers: 404s that are not
 * GCS's "No such object", throttling, a 500, a truncated body, a hang and a reset.
 */
class GcsClaimStoreContractIT extends ClaimStoreContract {

  static final String BUCKET = "contract-bucket";

  private static GcsStub stub;
  private static FaultProxy proxy;
  private static ClaimStore store;

  @BeforeAll
  static void start() throws Exception {
    stub = GcsStub.start();
    stub.objects().createBucket(BUCKET);
    proxy = FaultProxy.start(stub.endpoint());
    store = open("gs://" + BUCKET + "/claims", Map.of());
    // The SDK's first call loads and sets up much of it (about a second, cold): not a test's.
    Duration cold = Duration.ofSeconds(60);
    store.put("warm-up", new byte[] {1}, cold).join();
    store.getRange("warm-up", 0, 1, cold).join();
    store.stat("warm-up", cold).join();
    store.list("warm-up", null, cold).join();
    store.delete("warm-up", cold).join();
  }

  /** Opens {@code uri} as a user would, through the proxy, with the settings {@code extra}. */
  static ClaimStore open(String uri, Map<String, String> extra) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, uri);
    m.put("claimcheck.store.0.gcs.endpoint", proxy.endpoint().toString());
    m.put("claimcheck.store.0.gcs.anonymous", "true");
    m.put("claimcheck.store.op.deadline.ms", "5000");
    extra.forEach((k, v) -> m.put("claimcheck.store.0." + k, v));
    return new ClaimCheckConfig(m).stores().get(0).open();
  }

  @AfterAll
  static void stop() {
    if (store != null) {
      store.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (stub != null) {
      stub.close();
    }
  }

  @AfterEach
  void passThrough() {
    proxy.clear();
    proxy.resetCounts();
  }

  @Override
  protected ClaimStore store() {
    return store;
  }

  @Override
  protected void makeUnavailable() {
    proxy.down();
  }

  @Override
  protected void restore() {
    proxy.up();
  }

  @Override
  protected boolean backdate(String key, Instant at) {
    stub.backdate(BUCKET, "claims/" + key, at);
    return true;
  }

  @Test
  void aMissingBucketIsUnavailableNeverNotFound() {
    try (ClaimStore none = open("gs://no-such-bucket", Map.of())) {
      for (int length : new int[] {10, 0}) {
        StoreException e = failure(none.getRange("k", 0, length, T));
        assertThat(e.kind()).as("%s", e).isEqualTo(Kind.UNAVAILABLE);
        assertThat(e).hasMessageContaining("bucket does not exist");
      }
      assertThat(failure(none.stat("k", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(none.delete("k", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
  }

  @Test
  void anHtml404IsUnavailableNotNotFound() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.inject(Fault.htmlNotFound());
    for (String k : new String[] {key, freshKey()}) {
      StoreException get = failure(store.getRange(k, 0, 10, T));
      assertThat(get.kind()).as("%s", get).isEqualTo(Kind.UNAVAILABLE);
      assertThat(get).hasMessageContaining("without GCS's 'No such object'");
      assertThat(failure(store.getRange(k, 0, 0, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(store.stat(k, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(store.delete(k, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
    proxy.clear();
    assertThat(store.getRange(key, 0, 10, T).join()).isEqualTo(bytes(10));
  }

  @Test
  void throttlingIsThrottledWithItsRetryAfterAndA500IsUnavailable() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.inject(Fault.slowDown(Duration.ofSeconds(3))); // a 503 with Retry-After: 3
    StoreException slow = failure(store.getRange(key, 0, 10, T));
    assertThat(slow.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(slow.retryAfter()).contains(Duration.ofSeconds(3));
    assertThat(failure(store.putIfAbsent(freshKey(), bytes(3), T)).kind())
        .isEqualTo(Kind.THROTTLED);
    assertThat(failure(store.stat(key, T)).kind()).isEqualTo(Kind.THROTTLED);
    proxy.clear();
    proxy.inject(Fault.tooManyRequests());
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.THROTTLED);
    assertThat(failure(store.list("", null, T)).kind()).isEqualTo(Kind.THROTTLED);
    proxy.clear();
    proxy.inject(Fault.serverError());
    proxy.resetCounts();
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.stat(key, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.delete(key, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.putIfAbsent(freshKey(), bytes(3), T)).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(proxy.requestCount("GET")).as("one attempt per call, no SDK retries").isEqualTo(2);
    assertThat(proxy.requestCount("DELETE")).isEqualTo(1);
    assertThat(proxy.requestCount("POST")).isEqualTo(1);
  }

  @Test
  void aDenialIsForbiddenForEveryOperation() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.inject(Fault.forbidden());
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.stat(key, T)).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.putIfAbsent(freshKey(), bytes(3), T)).kind())
        .isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.delete(key, T)).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.list("", null, T)).kind()).isEqualTo(Kind.FORBIDDEN);
  }

  @Test
  void gcsOwnThrottlingAnswersAreThrottled() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    stub.throttleNext(1, 429);
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.THROTTLED);
    stub.throttleNext(1, 503);
    StoreException busy = failure(store.stat(key, T));
    assertThat(busy.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(busy.retryAfter()).contains(Duration.ofSeconds(2));
    stub.throttleNext(1, 429);
    assertThat(failure(store.putIfAbsent(freshKey(), bytes(3), T)).kind())
        .isEqualTo(Kind.THROTTLED);
    assertThat(store.getRange(key, 0, 10, T).join()).isEqualTo(bytes(10));
  }

  @Test
  void aTruncatedBodyOrA206WithoutContentRangeIsUnavailableNeverShortBytes() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(100), T).join();
    proxy.inject(Fault.truncatedBody(), "GET");
    StoreException cut = failure(store.getRange(key, 0, 40, T));
    assertThat(cut.kind()).as("%s", cut).isEqualTo(Kind.UNAVAILABLE);
    assertThat(cut).hasMessageContaining("but the body has");
    proxy.clear();
    proxy.inject(Fault.partialWithoutContentRange(), "GET");
    StoreException noRange = failure(store.getRange(key, 10, 20, T));
    assertThat(noRange.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(noRange).hasMessageContaining("without a Content-Range");
    proxy.clear();
    assertThat(store.getRange(key, 10, 20, T).join())
        .isEqualTo(java.util.Arrays.copyOfRange(bytes(100), 10, 30));
  }

  /** A hang or a reset is UNAVAILABLE within the call's timeout, and leaves no stuck connection. */
  @Test
  void aHungOrResetStoreIsUnavailableAndAnswersAgainAfterwards() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.hang(Duration.ofSeconds(8));
    for (int i = 0; i < 4; i++) {
      StoreException hung = failure(store.getRange(key, 0, 10, Duration.ofSeconds(1)));
      assertThat(hung.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(hung).hasMessageContaining("timed out");
    }
    proxy.clear();
    proxy.reset();
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.stat(key, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.putIfAbsent(freshKey(), bytes(3), T)).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    proxy.clear();
    for (int i = 0; i < 20; i++) {
      assertThat(store.getRange(key, 0, 10, T).join()).isEqualTo(bytes(10));
    }
  }

  @Test
  void aListingComesInPagesInNameOrderWithThePrefixStripped() {
    String dir = "paged-" + java.util.UUID.randomUUID() + "/";
    for (int i = 1002; i >= 0; i--) { // straight into the stub: 1003 uploads would take a while
      stub.objects().put(BUCKET, "claims/" + dir + String.format("%05d", i), bytes(1), 0L);
    }
    stub.objects().put(BUCKET, "claims/" + dir.substring(0, dir.length() - 1), bytes(1), 0L);
    stub.objects().put(BUCKET, "elsewhere/" + dir + "00000", bytes(1), 0L);
    var first = store.list(dir, null, T).join();
    assertThat(first.objects()).hasSize(1000);
    assertThat(first.objects().get(0).key()).isEqualTo(dir + "00000");
    assertThat(first.next()).isPresent();
    var second = store.list(dir, first.continuation(), T).join();
    assertThat(second.objects())
        .extracting(o -> o.key())
        .containsExactly(dir + "01000", dir + "01001", dir + "01002");
    assertThat(second.next()).isEmpty();
  }
}
