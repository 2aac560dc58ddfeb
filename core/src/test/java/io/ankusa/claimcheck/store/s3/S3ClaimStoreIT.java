package io.ankusa.claimcheck.store.s3;

import static io.ankusa.claimcheck.store.s3.S3TestStores.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The S3 store against a real S3 server (S3Proxy 4), directly. */
class S3ClaimStoreIT {

  private static final String BUCKET = "store-s3-it";
  private static final Duration T = Duration.ofSeconds(10);

  private static EmbeddedS3 s3;
  private static ClaimStore store;
  private static ClaimStore bucketRoot;

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.shared();
    s3.createBucket(BUCKET);
    store = S3TestStores.store(s3, s3.endpoint(), "s3://" + BUCKET + "/it/packs", T);
    bucketRoot = S3TestStores.store(s3, s3.endpoint(), "s3://" + BUCKET, T);
  }

  @AfterAll
  static void stop() {
    store.close();
    store.close(); // idempotent
    bucketRoot.close();
  }

  @Test
  void describesItsLocation() {
    assertThat(store.describe()).isEqualTo("s3://store-s3-it/it/packs");
    assertThat(bucketRoot.describe()).isEqualTo("s3://store-s3-it");
  }

  @Test
  void roundTripAndRangedReads() {
    byte[] bytes = new byte[100_000];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31 + 7);
    }
    store.putIfAbsent("round/trip", bytes, T).join();

    assertThat(store.getRange("round/trip", 0, bytes.length, T).join()).isEqualTo(bytes);
    assertThat(store.getRange("round/trip", 0, 10, T).join())
        .isEqualTo(Arrays.copyOfRange(bytes, 0, 10));
    assertThat(store.getRange("round/trip", 12_345, 1000, T).join())
        .isEqualTo(Arrays.copyOfRange(bytes, 12_345, 13_345));
    // The object ends first: fewer bytes.
    assertThat(store.getRange("round/trip", 99_990, 50, T).join())
        .isEqualTo(Arrays.copyOfRange(bytes, 99_990, 100_000));
    assertThat(store.getRange("round/trip", 99_999, 1, T).join()).containsExactly(bytes[99_999]);
    // At or past the end: none.
    assertThat(store.getRange("round/trip", 100_000, 10, T).join()).isEmpty();
    assertThat(store.getRange("round/trip", 5_000_000, 10, T).join()).isEmpty();
    // A zero-length read of an existing object is empty.
    assertThat(store.getRange("round/trip", 0, 0, T).join()).isEmpty();
  }

  @Test
  void keysAreUnderThePrefix() {
    byte[] bytes = "under the prefix".getBytes(StandardCharsets.UTF_8);
    store.putIfAbsent("tenant/p1", bytes, T).join();
    assertThat(bucketRoot.getRange("it/packs/tenant/p1", 0, 100, T).join()).isEqualTo(bytes);
    assertThat(failure(bucketRoot.getRange("tenant/p1", 0, 100, T)).kind())
        .isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void anEmptyObjectRoundTrips() {
    store.putIfAbsent("empty", new byte[0], T).join();
    assertThat(store.getRange("empty", 0, 10, T).join()).isEmpty();
    assertThat(store.getRange("empty", 0, 0, T).join()).isEmpty();
  }

  @Test
  void aMissingKeyIsNotFound() {
    StoreException e = failure(store.getRange("missing/key", 0, 10, T));
    assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(e)
        .hasMessageContaining("s3://store-s3-it/it/packs")
        .hasMessageContaining("missing/key");
    // The zero-length read asks with HEAD, which has no error body.
    assertThat(failure(store.getRange("missing/key", 0, 0, T)).kind()).isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void aMissingBucketIsUnavailable() {
    try (ClaimStore noBucket = S3TestStores.store(s3, s3.endpoint(), "s3://no-such-bucket", T)) {
      assertThat(failure(noBucket.getRange("k", 0, 1, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
  }

  @Test
  void aWrongSecretIsForbiddenAndTheMessageHoldsNoSecret() {
    String wrongSecret = "this-is-the-wrong-secret";
    Map<String, Object> config = S3TestStores.config(s3, s3.endpoint(), "s3://" + BUCKET);
    config.put("claimcheck.s3.secret.access.key", wrongSecret);
    try (ClaimStore wrong = S3TestStores.create(config)) {
      StoreException read = failure(wrong.getRange("any", 0, 1, T));
      assertThat(read.kind()).isEqualTo(Kind.FORBIDDEN);
      StoreException write = failure(wrong.putIfAbsent("any", new byte[] {1}, T));
      assertThat(write.kind()).isEqualTo(Kind.FORBIDDEN);
      assertThat(read.getMessage() + write.getMessage())
          .doesNotContain(wrongSecret)
          .doesNotContain(s3.secretKey());
    }
  }

  @Test
  void aSecondPutIsAlreadyExistsAndTheFirstBytesRemain() {
    byte[] first = "first".getBytes(StandardCharsets.UTF_8);
    store.putIfAbsent("twice", first, T).join();
    StoreException e =
        failure(store.putIfAbsent("twice", "second!".getBytes(StandardCharsets.UTF_8), T));
    assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(e).hasMessageContaining("twice");
    assertThat(store.getRange("twice", 0, 100, T).join()).isEqualTo(first);
  }

  @Test
  void deleteRemovesAndToleratesAbsence() {
    store.putIfAbsent("doomed", new byte[] {1, 2, 3}, T).join();
    store.delete("doomed", T).join();
    assertThat(failure(store.getRange("doomed", 0, 3, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    store.delete("doomed", T).join();
    store.putIfAbsent("doomed", new byte[] {4}, T).join(); // the key is free again
    assertThat(store.getRange("doomed", 0, 3, T).join()).containsExactly(4);
  }

  @Test
  void thirtyWritersRacingOnOneKeyHaveExactlyOneWinner() throws Exception {
    int writers = 30;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      for (int round = 0; round < 5; round++) {
        String key = "race/" + round;
        CyclicBarrier start = new CyclicBarrier(writers);
        List<Future<StoreException>> outcomes = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          byte[] bytes = payload(w);
          outcomes.add(
              pool.submit(
                  () -> {
                    start.await();
                    try {
                      store.putIfAbsent(key, bytes, T).join();
                      return null; // won
                    } catch (CompletionException e) {
                      return StoreException.of(e);
                    }
                  }));
        }
        List<Integer> winners = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          StoreException lost = outcomes.get(w).get();
          if (lost == null) {
            winners.add(w);
          } else {
            // Never "could not answer": S3Proxy closes the keep-alive connection after a losing
            // 412, and a request already sent on it is retried (StaleConnectionRetry).
            assertThat(lost.kind())
                .as("loser %d of round %d: %s", w, round, lost.getMessage())
                .isEqualTo(Kind.ALREADY_EXISTS);
          }
        }
        assertThat(winners).as("winners of round %d", round).hasSize(1);
        byte[] stored = store.getRange(key, 0, payload(0).length + 1, T).join();
        assertThat(stored).isEqualTo(payload(winners.get(0)));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static byte[] payload(int writer) {
    byte[] bytes = new byte[64 * 1024];
    Arrays.fill(bytes, (byte) writer);
    byte[] tag = ("writer-" + writer + "|").getBytes(StandardCharsets.UTF_8);
    System.arraycopy(tag, 0, bytes, 0, tag.length);
    return bytes;
  }
}
