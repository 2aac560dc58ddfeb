package io.ankusa.claimcheck.store.s3;

import static io.ankusa.claimcheck.store.s3.S3TestStores.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Packs at or above the multipart threshold go up as a multipart upload against S3Proxy 4 (which
 * honours {@code If-None-Match: *} on CompleteMultipartUpload): same bytes back, never overwritten,
 * one winner among racing writers, and a failed part leaves no object behind.
 */
class S3MultipartIT {

  private static final Duration T = Duration.ofSeconds(20);
  private static final int PART = S3StoreProvider.MIN_PART_SIZE;
  private static EmbeddedS3 s3;
  private static FaultProxy proxy;
  private static String bucket;
  private static S3Client admin;
  private final List<ClaimStore> opened = new ArrayList<>();

  @BeforeAll
  static void servers() {
    s3 = EmbeddedS3.shared();
    bucket = s3.createBucket("multipart-" + ThreadLocalRandom.current().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
    admin = S3TestStores.admin(s3);
  }

  @AfterAll
  static void stop() {
    admin.close();
    proxy.close();
  }

  private static int openUploads() {
    return S3TestStores.openUploads(admin, bucket);
  }

  @AfterEach
  void close() {
    proxy.clear();
    opened.forEach(ClaimStore::close);
  }

  private ClaimStore store() {
    Map<String, Object> config = S3TestStores.config(s3, proxy.endpoint(), "s3://" + bucket);
    config.put("claimcheck.s3.multipart.threshold.bytes", String.valueOf(PART + 1));
    config.put("claimcheck.s3.multipart.part.bytes", String.valueOf(PART));
    config.put("claimcheck.store.op.deadline.ms", String.valueOf(T.toMillis()));
    ClaimStore s = S3TestStores.create(config);
    opened.add(s);
    return s;
  }

  private static byte[] payload(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Compares without printing megabytes of bytes on a mismatch. */
  private static void assertSame(byte[] actual, byte[] expected) {
    assertThat(actual.length).isEqualTo(expected.length);
    int mismatch = java.util.Arrays.mismatch(actual, expected);
    assertThat(mismatch).as("first differing byte").isEqualTo(-1);
  }

  private static String key() {
    return "mp/" + ThreadLocalRandom.current().nextLong();
  }

  @Test
  void aLargePackRoundTripsThroughAMultipartUpload() {
    ClaimStore store = store();
    byte[] pack = payload(3 * PART + 12345, 1);
    String key = key();
    proxy.resetCounts();
    store.putIfAbsent(key, pack, T).join();
    assertThat(proxy.requestCount("PUT")).as("one request per part").isEqualTo(4);
    assertSame(store.getRange(key, 0, pack.length, T).join(), pack);
    // A range across a part boundary.
    byte[] across = store.getRange(key, PART - 10, 20, T).join();
    assertSame(across, java.util.Arrays.copyOfRange(pack, PART - 10, PART + 10));
  }

  @Test
  void aSecondMultipartPutOfTheSameKeyIsAlreadyExistsAndChangesNothing() {
    ClaimStore store = store();
    String key = key();
    byte[] first = payload(2 * PART, 2);
    store.putIfAbsent(key, first, T).join();
    StoreException e = failure(store.putIfAbsent(key, payload(2 * PART, 3), T));
    assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS);
    assertSame(store.getRange(key, 0, first.length, T).join(), first);
  }

  @Test
  void aLosingMultipartPutFailsOnlyOnceItsAbortLandedEvenWhenTheAbortIsSlow() {
    // Regression: the abort was sent and not awaited, so a caller (or a process exiting on the
    // failure) could still find the losing upload open after the put had failed.
    ClaimStore store = store();
    String key = key();
    byte[] first = payload(2 * PART, 6);
    store.putIfAbsent(key, first, T).join();
    proxy.inject(Fault.hang(Duration.ofMillis(500)), "DELETE"); // the abort, held then passed on
    proxy.resetCounts();
    StoreException e = failure(store.putIfAbsent(key, payload(2 * PART, 7), T));
    assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(proxy.requestCount("DELETE")).as("the abort was sent").isEqualTo(1);
    assertThat(openUploads()).as("the losing upload was aborted before the put failed").isZero();
    assertSame(store.getRange(key, 0, first.length, T).join(), first);
  }

  @Test
  void racingMultipartWritersHaveExactlyOneWinner() {
    String key = key();
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    List<byte[]> packs = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      byte[] pack = payload(PART + 100, 10 + w);
      packs.add(pack);
      puts.add(store().putIfAbsent(key, pack, T));
    }
    int winners = 0;
    int winner = -1;
    for (int w = 0; w < puts.size(); w++) {
      try {
        puts.get(w).join();
        winners++;
        winner = w;
      } catch (CompletionException e) {
        assertThat(StoreException.of(e).kind()).isEqualTo(Kind.ALREADY_EXISTS);
      }
    }
    assertThat(winners).isEqualTo(1);
    assertSame(store().getRange(key, 0, PART + 100, T).join(), packs.get(winner));
  }

  @Test
  void aFailedPartFailsThePutAndLeavesNoObject() {
    ClaimStore store = store();
    String key = key();
    proxy.failTimes(1, Fault.serverError(), "PUT");
    StoreException e = failure(store.putIfAbsent(key, payload(2 * PART + 1, 4), T));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(openUploads()).as("the failed upload was aborted before the put failed").isZero();
    assertThat(failure(store.getRange(key, 0, 1, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    // The store is usable again and the key is still free.
    byte[] pack = payload(2 * PART + 1, 5);
    store.putIfAbsent(key, pack, T).join();
    assertSame(store.getRange(key, 0, pack.length, T).join(), pack);
  }
}
