package io.ankusa.claimcheck.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cache-hit redeem path against a bare Caffeine {@code getIfPresent} on an identically built
 * cache holding the same keys: what the reader adds to a hit (target: at most 2x, under 1 µs).
 *
 * <p>{@code readerFetchHit} is {@code fetch(..).join()} on a reader (deserializers share one per
 * store configuration through the engine's runtime); {@code gatedRequestHit} adds {@code
 * admit()}/{@code release()} around it with a bounded gate.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class CacheHitBenchmark {

  private static final int KEYS = 1024;
  private static final long MAX_BYTES = 64L << 20;

  private final FetchKey[] keys = new FetchKey[KEYS];
  private Cache<FetchKey, byte[]> bare;
  private ClaimReader reader;
  private ClaimReader gated;
  private long deadline;
  private final Supplier<CompletableFuture<byte[]>> neverCalled =
      () -> CompletableFuture.failedFuture(new IllegalStateException("not a hit"));

  /** Each benchmark thread walks the keys on its own. */
  @State(Scope.Thread)
  public static class Cursor {
    int i;

    FetchKey next(FetchKey[] keys) {
      return keys[i++ & (KEYS - 1)];
    }
  }

  @Setup
  public void setUp() {
    bare =
        Caffeine.newBuilder()
            .maximumWeight(MAX_BYTES)
            .weigher((FetchKey k, byte[] v) -> Math.max(1, v.length))
            .executor(Runnable::run)
            .build();
    ReaderSettings settings =
        ReaderSettings.builder(1)
            .cacheMaxBytes(MAX_BYTES)
            .telemetry(ClaimCheckTelemetry.noop())
            .build();
    reader = ClaimReaders.create(settings);
    gated = ClaimReaders.create(settings.toBuilder().maxConcurrentReads(1024).build());
    deadline = Ticker.system().read() + TimeUnit.HOURS.toNanos(1);
    for (int i = 0; i < KEYS; i++) {
      byte[] value = new byte[256];
      keys[i] =
          FetchKey.range(
              "tenant-a",
              String.format("%016x", i * 0x9E3779B97F4A7C15L),
              (long) (i % 4) * value.length,
              value.length);
      bare.put(keys[i], value);
      CompletableFuture<byte[]> answer = CompletableFuture.completedFuture(value);
      reader.fetch(keys[i], 0, () -> answer, deadline).join();
      gated.fetch(keys[i], 0, () -> answer, deadline).join();
    }
  }

  @TearDown
  public void tearDown() {
    reader.close();
    gated.close();
  }

  @Benchmark
  public byte[] bareCaffeineGetIfPresent(Cursor c) {
    return bare.getIfPresent(c.next(keys));
  }

  @Benchmark
  public byte[] readerFetchHit(Cursor c) {
    return reader.fetch(c.next(keys), 0, neverCalled, deadline).join();
  }

  @Benchmark
  public byte[] gatedRequestHit(Cursor c) {
    if (!gated.admit()) {
      throw new IllegalStateException("gate full");
    }
    try {
      return gated.fetch(c.next(keys), 0, neverCalled, deadline).join();
    } finally {
      gated.release();
    }
  }
}
