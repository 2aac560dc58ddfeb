package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link ClaimStore#putStreamIfAbsent} on the S3 store against S3Proxy 4 (which honours {@code
 * If-None-Match: *} on CompleteMultipartUpload): a source read part by part into a concurrent
 * multipart upload, never replacing an object, one winner among racing streamed writers, and any
 * failure — a part's, the source's — aborting the upload so no object and no upload remain.
 */
class S3StreamedPutIT {

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
    bucket = s3.createBucket("streamed-" + ThreadLocalRandom.current().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
    admin = S3TestStores.admin(s3);
  }

  @AfterAll
  static void stop() {
    admin.close();
    proxy.close();
  }

  @AfterEach
  void close() {
    proxy.clear();
    opened.forEach(ClaimStore::close);
  }

  private ClaimStore store(URI endpoint) {
    Map<String, Object> config = S3TestStores.config(s3, endpoint, "s3://" + bucket);
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

  private static void assertSame(byte[] actual, byte[] expected) {
    assertThat(actual.length).isEqualTo(expected.length);
    assertThat(java.util.Arrays.mismatch(actual, expected))
        .as("first differing byte")
        .isEqualTo(-1);
  }

  private static String key() {
    return "st/" + ThreadLocalRandom.current().nextLong();
  }

  private static int openUploads() {
    return S3TestStores.openUploads(admin, bucket);
  }

  private static int openUploadsOnceAbortsLanded() throws InterruptedException {
    return S3TestStores.openUploadsOnceAbortsLanded(admin, bucket);
  }

  @Test
  void aStreamOfSeveralPartsRoundTripsThroughAMultipartUpload() throws Exception {
    ClaimStore store = store(proxy.endpoint());
    byte[] claim = payload(3 * PART + 777, 1);
    String key = key();
    proxy.resetCounts();
    assertThat(store.putStreamIfAbsent(key, new ByteArrayInputStream(claim), claim.length, T))
        .isEqualTo(claim.length);
    assertThat(proxy.requestCount("PUT")).as("one request per part").isEqualTo(4);
    assertThat(proxy.requestCount("POST")).as("create and complete").isEqualTo(2);
    assertSame(store.getRange(key, 0, claim.length, T).join(), claim);
  }

  @Test
  void aStreamOfUnknownLengthIsReadToItsEnd() throws Exception {
    ClaimStore store = store(s3.endpoint());
    byte[] claim = payload(2 * PART + 5, 2);
    String key = key();
    assertThat(
            store.putStreamIfAbsent(
                key, new ByteArrayInputStream(claim), ClaimStore.UNKNOWN_LENGTH, T))
        .isEqualTo(claim.length);
    assertSame(store.getRange(key, 0, claim.length, T).join(), claim);
  }

  @Test
  void aStreamOfOnePartIsOnePlainPutIfAbsent() throws Exception {
    ClaimStore store = store(proxy.endpoint());
    byte[] claim = payload(100_000, 3);
    String key = key();
    proxy.resetCounts();
    store.putStreamIfAbsent(key, new ByteArrayInputStream(claim), claim.length, T);
    assertThat(proxy.requestCount("PUT")).isEqualTo(1);
    assertThat(proxy.requestCount("POST")).isZero();
    StoreException again =
        (StoreException)
            org.assertj.core.api.Assertions.catchThrowable(
                () ->
                    store.putStreamIfAbsent(key, new ByteArrayInputStream(payload(10, 4)), 10, T));
    assertThat(again.kind()).isEqualTo(Kind.ALREADY_EXISTS);
    assertSame(store.getRange(key, 0, claim.length, T).join(), claim);
  }

  @Test
  void aSecondStreamedPutOfAKeyIsAlreadyExistsChangesNothingAndLeavesNoUpload() throws Exception {
    ClaimStore store = store(s3.endpoint());
    String key = key();
    byte[] first = payload(2 * PART, 5);
    store.putStreamIfAbsent(key, new ByteArrayInputStream(first), first.length, T);
    byte[] second = payload(2 * PART, 6);
    assertThatThrownBy(
            () -> store.putStreamIfAbsent(key, new ByteArrayInputStream(second), second.length, T))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS));
    assertSame(store.getRange(key, 0, first.length, T).join(), first);
    assertThat(openUploadsOnceAbortsLanded()).as("the losing upload was aborted").isZero();
  }

  @Test
  void aLosingStreamedPutFailsOnlyOnceItsAbortLandedEvenWhenTheAbortIsSlow() throws Exception {
    // Regression: the abort was sent and not awaited, so a loaded machine listed the losing upload
    // after the put had already failed (and a process exiting on the failure left it behind).
    ClaimStore store = store(proxy.endpoint());
    String key = key();
    byte[] first = payload(2 * PART, 7);
    store.putStreamIfAbsent(key, new ByteArrayInputStream(first), first.length, T);
    proxy.inject(Fault.hang(Duration.ofMillis(500)), "DELETE"); // the abort, held then passed on
    byte[] second = payload(2 * PART, 8);
    assertThatThrownBy(
            () -> store.putStreamIfAbsent(key, new ByteArrayInputStream(second), second.length, T))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS));
    assertThat(openUploads()).as("the losing upload was aborted before the put failed").isZero();
    assertSame(store.getRange(key, 0, first.length, T).join(), first);
  }

  @Test
  void racingStreamedPutIfAbsentOfOneKeyHaveExactlyOneWinner() throws Exception {
    String key = key();
    int writers = 3;
    CyclicBarrier start = new CyclicBarrier(writers);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<byte[]> claims = new ArrayList<>();
    List<Future<Long>> puts = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        byte[] claim = payload(PART + 1000, 20 + w);
        claims.add(claim);
        ClaimStore store = store(s3.endpoint());
        puts.add(
            pool.submit(
                () -> {
                  start.await();
                  return store.putStreamIfAbsent(
                      key, new ByteArrayInputStream(claim), claim.length, T);
                }));
      }
      int winners = 0;
      int winner = -1;
      for (int w = 0; w < writers; w++) {
        try {
          puts.get(w).get();
          winners++;
          winner = w;
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(StoreException.class);
          assertThat(((StoreException) e.getCause()).kind()).isEqualTo(Kind.ALREADY_EXISTS);
        }
      }
      assertThat(winners).isEqualTo(1);
      assertSame(store(s3.endpoint()).getRange(key, 0, PART + 1000, T).join(), claims.get(winner));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFailedPartAbortsTheUploadAndLeavesNoObject() throws Exception {
    ClaimStore store = store(proxy.endpoint());
    String key = key();
    proxy.failTimes(1, Fault.serverError(), "PUT");
    byte[] claim = payload(3 * PART, 7);
    assertThatThrownBy(
            () -> store.putStreamIfAbsent(key, new ByteArrayInputStream(claim), claim.length, T))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE));
    assertThat(S3TestStores.failure(store.getRange(key, 0, 1, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(openUploadsOnceAbortsLanded()).isZero();
  }

  @Test
  void aSourceFailingMidStreamIsItsIOExceptionAndAbortsTheUpload() throws Exception {
    ClaimStore store = store(s3.endpoint());
    String key = key();
    byte[] head = payload(2 * PART + 10, 8);
    InputStream broken =
        new java.io.SequenceInputStream(
            new ByteArrayInputStream(head),
            new InputStream() {
              @Override
              public int read() throws IOException {
                throw new IOException("the client went away");
              }
            });
    assertThatThrownBy(() -> store.putStreamIfAbsent(key, broken, 4L * PART, T))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("went away");
    assertThat(S3TestStores.failure(store.getRange(key, 0, 1, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(openUploadsOnceAbortsLanded()).isZero();
  }
}
