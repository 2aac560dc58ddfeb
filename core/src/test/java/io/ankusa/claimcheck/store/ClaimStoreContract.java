package io.ankusa.claimcheck.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The cases every {@link ClaimStore} passes, whatever it stores on; a subclass supplies the store
 * and a way to make it unreachable (and reachable again).
 */
public abstract class ClaimStoreContract {

  protected static final Duration T = Duration.ofSeconds(10);
  private static final int WRITERS = 8;

  /** The store under test (the same one for every call within a test). */
  protected abstract ClaimStore store();

  /** Makes the store unreachable as a user would meet it (down, unmounted, failing). */
  protected abstract void makeUnavailable() throws Exception;

  /** Undoes {@link #makeUnavailable()}. */
  protected abstract void restore() throws Exception;

  /**
   * Makes the store list the object under {@code key} as last modified at {@code at}, where the
   * test can (an old pack, without waiting); false where it cannot, as against a real S3 server.
   */
  protected boolean backdate(String key, Instant at) throws Exception {
    return false;
  }

  /** A key no other test uses. */
  protected static String freshKey() {
    return "contract/" + UUID.randomUUID();
  }

  protected static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  /** Waits for {@code f} and returns the StoreException it failed with; fails if it did not. */
  protected static StoreException failure(CompletableFuture<?> f) {
    try {
      Object value = f.join();
      throw new AssertionError("expected a StoreException but completed with " + value);
    } catch (CompletionException e) {
      if (e.getCause() instanceof StoreException se) {
        return se;
      }
      throw new AssertionError("expected a StoreException", e.getCause());
    }
  }

  @Test
  void aPutObjectReadsBackWholeAndItsStoreIsDescribed() {
    String key = freshKey();
    byte[] value = "a claim".getBytes(StandardCharsets.UTF_8);
    store().putIfAbsent(key, value, T).join();
    assertThat(store().getRange(key, 0, value.length, T).join()).isEqualTo(value);
    assertThat(store().describe()).isNotBlank();
  }

  @Test
  void concurrentPutsOfOneKeyHaveExactlyOneWinnerWhoseBytesStay() throws Exception {
    String key = freshKey();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<CompletableFuture<Void>>> started = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        byte[] mine = ("writer " + w).getBytes(StandardCharsets.UTF_8);
        started.add(
            CompletableFuture.supplyAsync(
                () -> {
                  awaitQuietly(go);
                  return store().putIfAbsent(key, mine, T);
                },
                pool));
      }
      go.countDown();
      int winner = -1;
      int collisions = 0;
      for (int w = 0; w < WRITERS; w++) {
        CompletableFuture<Void> put = started.get(w).join();
        try {
          put.join();
          assertThat(winner).as("a second winner: writer %d after %d", w, winner).isEqualTo(-1);
          winner = w;
        } catch (CompletionException e) {
          assertThat(StoreException.of(e).kind()).isEqualTo(Kind.ALREADY_EXISTS);
          collisions++;
        }
      }
      assertThat(winner).isNotEqualTo(-1);
      assertThat(collisions).isEqualTo(WRITERS - 1);
      byte[] expected = ("writer " + winner).getBytes(StandardCharsets.UTF_8);
      assertThat(store().getRange(key, 0, 100, T).join()).isEqualTo(expected);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aSecondPutOfAKeyLeavesTheFirstBytes() {
    String key = freshKey();
    store().putIfAbsent(key, bytes(10), T).join();
    assertThat(failure(store().putIfAbsent(key, new byte[] {1, 2, 3}, T)).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(store().getRange(key, 0, 10, T).join()).isEqualTo(bytes(10));
  }

  @Test
  void aPutOfPartsStoresTheirConcatenationOnceOnAnyThread() {
    byte[] a = bytes(47);
    byte[] b = "a claim's own array".getBytes(StandardCharsets.UTF_8);
    byte[] c = bytes(70_000);
    byte[] whole = new byte[a.length + b.length + c.length];
    System.arraycopy(a, 0, whole, 0, a.length);
    System.arraycopy(b, 0, whole, a.length, b.length);
    System.arraycopy(c, 0, whole, a.length + b.length, c.length);
    String queued = freshKey();
    store().putPartsIfAbsent(queued, List.of(a, b, new byte[0], c), T).join();
    // A thread that waits for the answer anyway lets a store write on it (InlineCalls).
    String inline = freshKey();
    try (InlineCalls.Scope s = InlineCalls.allow()) {
      store().putPartsIfAbsent(inline, List.of(a, b, new byte[0], c), T).join();
      assertThat(failure(store().putPartsIfAbsent(inline, List.of(b, a), T)).kind())
          .isEqualTo(Kind.ALREADY_EXISTS);
    }
    for (String key : List.of(queued, inline)) {
      assertThat(store().getRange(key, 0, whole.length + 10, T).join()).isEqualTo(whole);
    }
    assertThat(failure(store().putPartsIfAbsent(queued, List.of(a), T)).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(store().getRange(queued, 0, whole.length, T).join()).isEqualTo(whole);
    String lone = freshKey();
    store().putPartsIfAbsent(lone, List.of(b), T).join();
    assertThat(store().getRange(lone, 0, 100, T).join()).isEqualTo(b);
  }

  @Test
  void rangedReadsAtTheEdges() {
    String key = freshKey();
    byte[] value = bytes(100);
    store().putIfAbsent(key, value, T).join();
    assertThat(store().getRange(key, 0, 10, T).join()).isEqualTo(Arrays.copyOfRange(value, 0, 10));
    assertThat(store().getRange(key, 0, 100, T).join()).isEqualTo(value);
    assertThat(store().getRange(key, 99, 1, T).join()).containsExactly(value[99]);
    assertThat(store().getRange(key, 37, 5, T).join()).isEqualTo(Arrays.copyOfRange(value, 37, 42));
    // Past the end: fewer bytes only because the object ends first.
    assertThat(store().getRange(key, 90, 50, T).join())
        .isEqualTo(Arrays.copyOfRange(value, 90, 100));
    assertThat(store().getRange(key, 0, 1000, T).join()).isEqualTo(value);
    assertThat(store().getRange(key, 100, 5, T).join()).isEmpty();
    assertThat(store().getRange(key, 250, 5, T).join()).isEmpty();
    assertThat(store().getRange(key, 0, 0, T).join()).isEmpty();
    assertThat(store().getRange(key, 50, 0, T).join()).isEmpty();
  }

  @Test
  void anEmptyObjectReadsAsEmpty() {
    String key = freshKey();
    store().putIfAbsent(key, new byte[0], T).join();
    assertThat(store().getRange(key, 0, 10, T).join()).isEmpty();
    assertThat(store().getRange(key, 0, 0, T).join()).isEmpty();
  }

  @Test
  void aMissingKeyIsNotFound() {
    String key = freshKey();
    assertThat(failure(store().getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(failure(store().getRange(key, 5, 1, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(failure(store().getRange(key, 0, 0, T)).kind()).isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void anUnreachableStoreIsUnavailableNeverNotFound() throws Exception {
    String present = freshKey();
    String absent = freshKey();
    store().putIfAbsent(present, bytes(20), T).join();
    makeUnavailable();
    try {
      assertThat(failure(store().getRange(absent, 0, 10, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(store().getRange(absent, 0, 0, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(store().getRange(present, 0, 10, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(store().putIfAbsent(freshKey(), bytes(5), T)).kind())
          .isEqualTo(Kind.UNAVAILABLE);
    } finally {
      restore();
    }
    assertThat(store().getRange(present, 0, 20, T).join()).isEqualTo(bytes(20));
    assertThat(failure(store().getRange(absent, 0, 10, T)).kind()).isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void deletingRemovesAnObjectAndAnAbsentOneIsAlreadyDeleted() {
    String key = freshKey();
    store().putIfAbsent(key, bytes(3), T).join();
    store().delete(key, T).join();
    assertThat(failure(store().getRange(key, 0, 3, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    store().delete(key, T).join();
    store().delete(freshKey(), T).join();
  }

  @Test
  void putCreatesAMissingObjectAndReplacesAPresentOneWhole() {
    String key = freshKey();
    store().put(key, bytes(40), T).join();
    assertThat(store().getRange(key, 0, 100, T).join()).isEqualTo(bytes(40));
    store().put(key, bytes(40), T).join();
    assertThat(store().getRange(key, 0, 100, T).join()).isEqualTo(bytes(40));
    byte[] other = "replaced".getBytes(StandardCharsets.UTF_8);
    store().put(key, other, T).join();
    assertThat(store().getRange(key, 0, 100, T).join()).isEqualTo(other);
    assertThat(failure(store().putIfAbsent(key, bytes(3), T)).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
  }

  @Test
  void putOfAnOldObjectListsItAsWrittenNow() throws Exception {
    String key = freshKey();
    store().putIfAbsent(key, bytes(30), T).join();
    Instant old = Instant.parse("2020-01-01T00:00:00Z");
    if (!backdate(key, old)) {
      return; // covered where the store's clock is real: CollectorIT's re-sent key
    }
    assertThat(listed(key)).isEqualTo(old);
    Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    store().put(key, bytes(30), T).join();
    assertThat(listed(key)).isAfterOrEqualTo(before);
    assertThat(store().getRange(key, 0, 30, T).join()).isEqualTo(bytes(30));
  }

  @Test
  void putToAnUnreachableStoreIsUnavailable() throws Exception {
    String key = freshKey();
    store().putIfAbsent(key, bytes(5), T).join();
    makeUnavailable();
    try {
      assertThat(failure(store().put(key, bytes(5), T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    } finally {
      restore();
    }
    assertThat(store().getRange(key, 0, 5, T).join()).isEqualTo(bytes(5));
  }

  @Test
  void statReportsWhatTheListingReports() throws Exception {
    String key = freshKey();
    store().putIfAbsent(key, bytes(30), T).join();
    StoredObject stat = store().stat(key, T).join();
    assertThat(stat.key()).isEqualTo(key);
    assertThat(stat.size()).isEqualTo(30);
    assertThat(stat.lastModified()).isEqualTo(listed(key));
    if (backdate(key, Instant.parse("2020-01-01T00:00:00Z"))) {
      assertThat(store().stat(key, T).join().lastModified())
          .isEqualTo(Instant.parse("2020-01-01T00:00:00Z"));
    }
  }

  @Test
  void statOfAMissingOrDeletedObjectIsNotFound() {
    String key = freshKey();
    assertThat(failure(store().stat(key, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    store().putIfAbsent(key, bytes(3), T).join();
    store().delete(key, T).join();
    assertThat(failure(store().stat(key, T)).kind()).isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void statOfAnUnreachableStoreIsUnavailable() throws Exception {
    String key = freshKey();
    store().putIfAbsent(key, bytes(5), T).join();
    makeUnavailable();
    try {
      assertThat(failure(store().stat(key, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(store().stat(freshKey(), T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    } finally {
      restore();
    }
  }

  @Test
  void theSweepLockKeyIsStorableAndNeverAPack() {
    String key = SweepLock.key("t1");
    store().putIfAbsent(key, bytes(4), T).join();
    assertThat(store().stat(key, T).join().size()).isEqualTo(4);
    assertThat(failure(store().putIfAbsent(key, bytes(4), T)).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(store().list("t1/", null, T).join().objects()).noneMatch(o -> o.key().equals(key));
    store().delete(key, T).join();
    assertThat(failure(store().stat(key, T)).kind()).isEqualTo(Kind.NOT_FOUND);
  }

  private Instant listed(String key) {
    for (StoredObject o : store().list(key, null, T).join().objects()) {
      if (o.key().equals(key)) {
        return o.lastModified();
      }
    }
    throw new AssertionError(key + " is not listed");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
