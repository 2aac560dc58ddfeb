package io.ankusa.claimcheck.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimStore#putStreamIfAbsent} on the GCS store over the {@link GcsStub}: a resumable
 * upload in 256 KiB chunks under {@code ifGenerationMatch=0}, never replacing an object, and no
 * object when the source fails, ends early or a chunk is refused.
 */
class GcsStreamedUploadIT {

  private static final Duration T = Duration.ofSeconds(10);
  private static final int CHUNK = GcsStoreProvider.CHUNK_QUANTUM;
  private static final String BUCKET = "streamed-bucket";

  private static GcsStub stub;
  private static FaultProxy proxy;
  private static ClaimStore store;

  @BeforeAll
  static void start() throws Exception {
    stub = GcsStub.start();
    stub.objects().createBucket(BUCKET);
    proxy = FaultProxy.start(stub.endpoint());
    Map<String, Object> m = new java.util.HashMap<>();
    m.put("claimcheck.stores", "gs://" + BUCKET + "/s");
    m.put("claimcheck.store.0.gcs.endpoint", proxy.endpoint().toString());
    m.put("claimcheck.store.0.gcs.anonymous", "true");
    m.put("claimcheck.store.0.gcs.upload.chunk.bytes", Integer.toString(CHUNK));
    m.put("claimcheck.store.op.deadline.ms", "5000");
    store = new io.ankusa.claimcheck.config.ClaimCheckConfig(m).stores().get(0).open();
    store.put("warm-up", new byte[] {1}, Duration.ofSeconds(60)).join();
  }

  @AfterAll
  static void stop() {
    store.close();
    proxy.close();
    stub.close();
  }

  @AfterEach
  void passThrough() {
    proxy.clear();
    proxy.resetCounts();
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  private static String key() {
    return "streamed/" + UUID.randomUUID();
  }

  @Test
  void aStreamGoesUpInChunksAndReadsBackWhole() throws IOException {
    for (long length : new long[] {3 * CHUNK + 17, ClaimStore.UNKNOWN_LENGTH}) {
      String key = key();
      byte[] value = bytes(3 * CHUNK + 17);
      proxy.resetCounts();
      assertThat(store.putStreamIfAbsent(key, new ByteArrayInputStream(value), length, T))
          .isEqualTo(value.length);
      assertThat(proxy.requestCount("POST")).as("the session").isEqualTo(1);
      assertThat(proxy.requestCount("PUT")).as("3 chunks and the last").isEqualTo(4);
      assertThat(store.getRange(key, 0, value.length + 10, T).join()).isEqualTo(value);
      assertThat(store.stat(key, T).join().size()).isEqualTo(value.length);
    }
  }

  @Test
  void aStreamNeverReplacesAnObject() throws IOException {
    String key = key();
    store.putIfAbsent(key, bytes(10), T).join();
    StoreException e =
        (StoreException)
            catchThrowable(
                () ->
                    store.putStreamIfAbsent(
                        key, new ByteArrayInputStream(bytes(CHUNK + 1)), CHUNK + 1, T));
    assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(store.getRange(key, 0, 100, T).join()).isEqualTo(bytes(10));
  }

  @Test
  void anObjectWrittenDuringTheUploadWinsAndTheUploadIsAlreadyExists() {
    String key = key();
    byte[] first = bytes(2 * CHUNK);
    InputStream source =
        new InputStream() {
          int at;

          @Override
          public int read() {
            if (at == CHUNK + 5) { // mid-upload: another writer's object lands
              stub.objects().put(BUCKET, "s/" + key, new byte[] {9}, 0L);
            }
            return at < first.length ? first[at++] & 0xff : -1;
          }
        };
    StoreException e =
        (StoreException)
            catchThrowable(
                () -> store.putStreamIfAbsent(key, source, ClaimStore.UNKNOWN_LENGTH, T));
    assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(store.getRange(key, 0, 10, T).join()).containsExactly(9);
  }

  @Test
  void aFailingOrShortSourceOrARefusedChunkLeavesNoObject() {
    String failing = key();
    InputStream broken =
        new InputStream() {
          int at;

          @Override
          public int read() throws IOException {
            if (at++ >= CHUNK + 100) { // and on: InputStream.read(byte[]) swallows a first one
              throw new IOException("the source broke");
            }
            return 1;
          }
        };
    assertThatThrownBy(() -> store.putStreamIfAbsent(failing, broken, 4L * CHUNK, T))
        .isInstanceOf(IOException.class)
        .hasMessage("the source broke");
    String shortOne = key();
    assertThatThrownBy(
            () ->
                store.putStreamIfAbsent(
                    shortOne, new ByteArrayInputStream(bytes(CHUNK + 3)), 2L * CHUNK, T))
        .isInstanceOf(EOFException.class);
    String refused = key();
    proxy.failTimes(1, Fault.serverError(), "PUT");
    StoreException e =
        (StoreException)
            catchThrowable(
                () ->
                    store.putStreamIfAbsent(
                        refused, new ByteArrayInputStream(bytes(3 * CHUNK)), 3L * CHUNK, T));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    for (String k : new String[] {failing, shortOne, refused}) {
      assertThat(StoreException.of(catchThrowable(() -> store.stat(k, T).join())).kind())
          .as(k)
          .isEqualTo(Kind.NOT_FOUND);
    }
    assertThat(store.list("streamed/", null, T).join().objects())
        .noneMatch(
            o -> o.key().equals(failing) || o.key().equals(shortOne) || o.key().equals(refused));
  }

  @Test
  void anEmptySourceIsRefusedWithoutASession() {
    proxy.resetCounts();
    assertThatThrownBy(
            () ->
                store.putStreamIfAbsent(
                    key(), new ByteArrayInputStream(new byte[0]), ClaimStore.UNKNOWN_LENGTH, T))
        .isInstanceOf(EOFException.class);
    assertThat(proxy.requestCount("POST")).isZero();
  }

  private static Throwable catchThrowable(ThrowingCall call) {
    try {
      call.run();
    } catch (Throwable t) {
      return t;
    }
    throw new AssertionError("expected a failure");
  }

  @FunctionalInterface
  interface ThrowingCall {
    void run() throws Exception;
  }
}
