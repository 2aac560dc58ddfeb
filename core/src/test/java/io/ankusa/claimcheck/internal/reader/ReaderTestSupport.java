package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;

/** A reader on a driven clock, hand-fired timers, recorded telemetry and a hand-answered store. */
abstract class ReaderTestSupport {

  static final Duration THIRTY_S = Duration.ofSeconds(30);

  final FakeTicker ticker = new FakeTicker();
  final ManualScheduler scheduler = new ManualScheduler(ticker);
  final RecordingTelemetry telemetry = new RecordingTelemetry();
  final ManualStore store = new ManualStore();

  /** What the backoff's jitter draws next (in [0, 1)); tests set it to place retries exactly. */
  volatile double jitter = 0.5;

  DefaultClaimReader reader;

  /** The backoff of the test reader: 50 ms base, 2 s cap, jitter {@link #jitter}. */
  final Backoff backoff = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2), () -> jitter);

  DefaultClaimReader reader(Consumer<ReaderSettings.Builder> settings) {
    ReaderSettings.Builder b =
        ReaderSettings.builder(2)
            .ticker(ticker)
            .scheduler(scheduler)
            .telemetry(telemetry)
            .retry(backoff);
    settings.accept(b);
    reader = (DefaultClaimReader) ClaimReaders.create(b.build());
    return reader;
  }

  @AfterEach
  void closeReader() {
    if (reader != null) {
      reader.close();
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Distinct keys for distinct {@code i} (>= 0): the i-th 64-byte range of one of 16 packs. */
  static FetchKey key(int i) {
    return FetchKey.range("t1", "00000000000000a" + Integer.toHexString(i % 16), 64L * i, 64);
  }

  long in(Duration d) {
    return ticker.in(d);
  }

  CompletableFuture<byte[]> fetch(FetchKey key, int storeIndex, long deadline) {
    return reader.fetch(key, storeIndex, store.fn(), deadline);
  }

  CompletableFuture<byte[]> fetch(FetchKey key) {
    return fetch(key, 0, in(THIRTY_S));
  }

  /** A fetch function that must never be called. */
  static Supplier<CompletableFuture<byte[]>> never() {
    return () -> fail("the store must not be asked");
  }

  /** A fetch function that answers at once. */
  static Supplier<CompletableFuture<byte[]>> answers(byte[] b) {
    return () -> CompletableFuture.completedFuture(b);
  }

  /** A fetch function that fails at once with {@code kind}. */
  static Supplier<CompletableFuture<byte[]>> fails(StoreException.Kind kind) {
    return () -> CompletableFuture.failedFuture(new StoreException(kind, "test"));
  }

  int limit(int storeIndex) {
    return reader.stats().get(storeIndex).limit();
  }

  static Throwable failure(CompletableFuture<?> f) {
    assertThat(f).isDone();
    try {
      f.join();
    } catch (CompletionException e) {
      return e.getCause();
    }
    return fail("expected %s to have failed", f);
  }

  static void assertValue(CompletableFuture<byte[]> f, String expected) {
    assertThat(f)
        .isCompletedWithValueMatching(
            b -> java.util.Arrays.equals(b, bytes(expected)), "the bytes of \"" + expected + "\"");
  }

  static void assertRead(CompletableFuture<?> f, ReadException.Reason reason) {
    assertThat(failure(f))
        .isInstanceOfSatisfying(ReadException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  static void assertStore(CompletableFuture<?> f, StoreException.Kind kind) {
    assertThat(failure(f))
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.kind()).isEqualTo(kind));
  }
}
