package io.ankusa.claimcheck.store.s3;

import static io.ankusa.claimcheck.store.s3.S3TestStores.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.InlineArrivals;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The S3 store's calls on the calling thread ({@link InlineCalls}, a synchronous client) against
 * S3Proxy through the fault proxy: the same answers and failures as the asynchronous client, one
 * attempt each, bounded by the call's timeout and by the thread's allowance — and a read the
 * allowance cut short goes on asynchronously, so its late answer still arrives.
 */
class S3InlineCallsIT {

  private static final String BUCKET = "store-s3-inline-it";
  private static final Duration OP_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration T = Duration.ofSeconds(5);
  private static final byte[] BYTES = "stored inline".getBytes(StandardCharsets.UTF_8);

  private static FaultProxy proxy;
  private static ClaimStore store;

  @BeforeAll
  static void start() {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    s3.createBucket(BUCKET);
    proxy = FaultProxy.inFrontOf(s3);
    store = S3TestStores.store(s3, proxy.endpoint(), "s3://" + BUCKET + "/inline", OP_TIMEOUT);
    store.putIfAbsent("present", BYTES, Duration.ofSeconds(30)).join();
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

  /** Runs {@code call} allowing inline calls (unbounded), returning its future as it came back. */
  private static <T> CompletableFuture<T> inline(Supplier<CompletableFuture<T>> call) {
    try (InlineCalls.Scope s = InlineCalls.allow()) {
      return call.get();
    }
  }

  @Test
  void aReadIsAnsweredOnTheCallingThreadBeforeTheCallReturns() {
    CompletableFuture<byte[]> f = inline(() -> store.getRange("present", 7, 6, T));
    assertThat(f).isCompleted(); // no hand-off: the GET ran on this thread
    assertThat(f.join()).isEqualTo("inline".getBytes(StandardCharsets.UTF_8));
    assertThat(inline(() -> store.getRange("present", 0, 100, T)).join()).isEqualTo(BYTES);
    assertThat(inline(() -> store.getRange("present", 100, 5, T)).join()).isEmpty(); // 416
    assertThat(proxy.requestCount("GET")).isEqualTo(3);
  }

  @Test
  void aCallsTimeoutIsDroppedWhenTheCallEnds() {
    S3ClaimStore s3 = (S3ClaimStore) store;
    List<Integer> armedDuring = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      try (InlineCalls.Scope w =
          InlineArrivals.watch((answer, filled) -> armedDuring.add(s3.armedInlineTimeouts()))) {
        assertThat(inline(() -> store.getRange("present", 0, 6, T)).join()).hasSize(6);
      }
    }
    // While a call runs its timeout is armed on the store's timer ...
    assertThat(armedDuring).isNotEmpty().containsOnly(1);
    // The SDK's default timer kept all 20 cancelled timeouts queued until they would have fired
    // (and woke its threads for each); the store's own drops each when its call ends.
    assertThat(s3.armedInlineTimeouts()).isZero();
  }

  @Test
  void aWatcherSeesTheAnswersOwnArrayFillOnTheCallingThread() {
    byte[] big = new byte[3 << 20];
    new Random(3).nextBytes(big);
    store.putIfAbsent("big", big, Duration.ofSeconds(30)).join();
    List<Integer> fills = new ArrayList<>();
    List<byte[]> arrays = new ArrayList<>();
    Thread caller = Thread.currentThread();
    CompletableFuture<byte[]> f;
    try (InlineCalls.Scope w =
        InlineArrivals.watch(
            (answer, filled) -> {
              assertThat(Thread.currentThread()).isSameAs(caller);
              // What the watcher is told arrived is there, in place, already.
              assertThat(answer[filled - 1]).isEqualTo(big[1 + filled - 1]);
              fills.add(filled);
              arrays.add(answer);
            })) {
      f = inline(() -> store.getRange("big", 1, big.length - 1, T));
    }
    byte[] got = f.join();
    assertThat(got).isEqualTo(java.util.Arrays.copyOfRange(big, 1, big.length));
    assertThat(fills).isNotEmpty().isSorted();
    if (HttpClients.NETTY.equals(S3TestStores.httpClient())) {
      // Apache 5 hands over what the socket has; CRT's synchronous client has the whole body
      // gathered before the first read returns, so it reports once.
      assertThat(fills).as("more than one arrival for 3 MiB").hasSizeGreaterThan(1);
    }
    assertThat(fills.get(fills.size() - 1)).isEqualTo(got.length);
    assertThat(arrays).allMatch(a -> a == got, "every arrival is in the answer's own array");
    // Unwatched and asynchronous reads report nothing to a watcher of another thread.
    fills.clear();
    assertThat(store.getRange("big", 0, 10, T).join()).hasSize(10);
    assertThat(fills).isEmpty();
  }

  @Test
  void inlineFailuresAreClassifiedAsTheAsynchronousClientsAreWithOneAttempt() {
    assertThat(failure(inline(() -> store.getRange("absent", 0, 10, T))).kind())
        .isEqualTo(Kind.NOT_FOUND);
    proxy.throttle503SlowDown(Duration.ofSeconds(2));
    StoreException get = failure(inline(() -> store.getRange("present", 0, 100, T)));
    assertThat(get.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(get.retryAfter()).hasValue(Duration.ofSeconds(2));
    StoreException put = failure(inline(() -> store.putIfAbsent("new", BYTES, T)));
    assertThat(put.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(proxy.requestCount("GET")).isEqualTo(2); // the SDK did not retry
    assertThat(proxy.requestCount("PUT")).isEqualTo(1);
    proxy.clear();
    proxy.forbidden403();
    assertThat(failure(inline(() -> store.getRange("present", 0, 100, T))).kind())
        .isEqualTo(Kind.FORBIDDEN);
    proxy.clear();
    proxy.inject(Fault.serverError());
    assertThat(failure(inline(() -> store.getRange("present", 0, 100, T))).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    proxy.clear();
    proxy.reset();
    assertThat(failure(inline(() -> store.getRange("present", 0, 100, T))).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    proxy.clear();
    proxy.down();
    assertThat(failure(inline(() -> store.getRange("present", 0, 100, T))).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    proxy.up();
    assertThat(inline(() -> store.getRange("present", 0, 100, T)).join()).isEqualTo(BYTES);
  }

  @Test
  void aHungReadIsAbortedAtTheOperationTimeoutAndLeavesTheThreadUninterrupted() {
    proxy.hang(Duration.ofSeconds(5));
    long start = System.nanoTime();
    StoreException e = failure(inline(() -> store.getRange("present", 0, 100, T)));
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e).hasMessageContaining("timed out");
    assertThat(tookMs).isBetween(OP_TIMEOUT.toMillis() - 50, OP_TIMEOUT.toMillis() + 1500);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aReadTheCallersDeadlineCutShortGoesOnAsynchronouslyAndItsLateAnswerArrives() {
    proxy.inject(Fault.hang(Duration.ofMillis(700)), "GET");
    long start = System.nanoTime();
    CompletableFuture<byte[]> f;
    try (InlineCalls.Scope s =
        InlineCalls.allowUntil(Ticker.system(), System.nanoTime() + 200_000_000L)) {
      f = store.getRange("present", 0, 100, T);
    }
    long returnedMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(returnedMs).isLessThan(OP_TIMEOUT.toMillis()); // the caller got its thread back
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    // The rest of the store's own timeout (2 s) outlasts the 700 ms hang: the bytes still come.
    assertThat(f.orTimeout(10, TimeUnit.SECONDS).join()).isEqualTo(BYTES);
    assertThat(proxy.requestCount("GET")).isEqualTo(2); // the inline one, then the rest of it
  }

  @Test
  void aPutOfPartsRunsOnTheCallingThreadAsOneRequestOfTheirConcatenation() {
    byte[] head = "a pack's head | ".getBytes(StandardCharsets.UTF_8);
    byte[] claim = "a claim's own array".getBytes(StandardCharsets.UTF_8);
    CompletableFuture<Void> f =
        inline(() -> store.putPartsIfAbsent("parts", List.of(head, claim), T));
    assertThat(f).isCompleted(); // no hand-off: the PUT ran on this thread
    f.join();
    assertThat(proxy.requestCount("PUT")).isEqualTo(1);
    assertThat(store.getRange("parts", 0, 100, T).join())
        .isEqualTo("a pack's head | a claim's own array".getBytes(StandardCharsets.UTF_8));
    assertThat(failure(inline(() -> store.putPartsIfAbsent("parts", List.of(claim), T))).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    proxy.throttle503SlowDown(Duration.ofSeconds(2));
    StoreException put =
        failure(inline(() -> store.putPartsIfAbsent("parts-2", List.of(head, claim), T)));
    assertThat(put.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(proxy.requestCount("PUT")).isEqualTo(3); // one each: the SDK did not retry
  }

  @Test
  void inlinePutsNeverReplaceAndRacingWritersHaveExactlyOneWinner() throws Exception {
    assertThat(inline(() -> store.putIfAbsent("once", BYTES, T))).isCompleted();
    assertThat(failure(inline(() -> store.putIfAbsent("once", BYTES, T))).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    // 30 threads racing on one key, each writing on itself: S3Proxy closes a connection after
    // each losing 412, and no writer may see that as anything but "already exists".
    for (int round = 0; round < 3; round++) {
      String key = "race-" + round;
      int writers = 30;
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<Kind>> outcomes = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        CompletableFuture<Kind> outcome = new CompletableFuture<>();
        outcomes.add(outcome);
        byte[] mine = ("writer " + w).getBytes(StandardCharsets.UTF_8);
        Thread t =
            new Thread(
                () -> {
                  try {
                    go.await();
                    CompletableFuture<Void> put = inline(() -> store.putIfAbsent(key, mine, T));
                    put.join();
                    outcome.complete(null);
                  } catch (Throwable e) {
                    outcome.complete(StoreException.of(StoreException.unwrap(e)).kind());
                  }
                });
        threads.add(t);
        t.start();
      }
      go.countDown();
      for (Thread t : threads) {
        t.join(30_000);
      }
      List<Kind> kinds = outcomes.stream().map(CompletableFuture::join).toList();
      assertThat(kinds.stream().filter(k -> k == null).count()).as("winners").isEqualTo(1);
      assertThat(kinds.stream().filter(k -> k != null)).allMatch(k -> k == Kind.ALREADY_EXISTS);
    }
  }
}
