package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code callers} redeems of one uncached key issued at once from four threads, against a store
 * that answers 200 µs after it is asked: how many store GETs that makes (reported, not asserted:
 * the figure printed at the end of the trial) and how long the whole burst takes.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
@Warmup(iterations = 20)
@Measurement(iterations = 50)
public class CoalescingBenchmark {

  private static final int SUBMITTERS = 4;

  @Param("1000")
  public int callers;

  private ExecutorService submitters;
  private ScheduledExecutorService store;
  private ClaimReader reader;
  private int round;
  private long bursts;
  private long storeGets;
  private int maxGetsPerBurst;

  @Setup
  public void setUp() {
    submitters = Executors.newFixedThreadPool(SUBMITTERS);
    store = Executors.newSingleThreadScheduledExecutor();
    reader =
        ClaimReaders.create(
            ReaderSettings.builder(1).telemetry(ClaimCheckTelemetry.noop()).build());
  }

  @TearDown
  public void tearDown() {
    System.out.printf(
        "%n[coalescing] %d bursts of %d concurrent redeems of one uncached key: "
            + "%d store GETs in all, at most %d in one burst%n",
        bursts, callers, storeGets, maxGetsPerBurst);
    reader.close();
    submitters.shutdownNow();
    store.shutdownNow();
  }

  @Benchmark
  public int thousandConcurrentRedeemsOfOneUncachedKey() throws Exception {
    byte[] value = new byte[1024];
    FetchKey key = FetchKey.range("tenant-a", Integer.toHexString(++round), 0, value.length);
    AtomicInteger gets = new AtomicInteger();
    Supplier<CompletableFuture<byte[]>> fn =
        () -> {
          gets.incrementAndGet();
          CompletableFuture<byte[]> f = new CompletableFuture<>();
          store.schedule(() -> f.complete(value), 200, TimeUnit.MICROSECONDS);
          return f;
        };
    long deadline = Ticker.system().read() + TimeUnit.SECONDS.toNanos(10);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<CompletableFuture<byte[]>>>> parts = new ArrayList<>();
    for (int s = 0; s < SUBMITTERS; s++) {
      parts.add(
          submitters.submit(
              () -> {
                go.await();
                List<CompletableFuture<byte[]>> mine = new ArrayList<>();
                for (int i = 0; i < callers / SUBMITTERS; i++) {
                  mine.add(reader.fetch(key, 0, fn, deadline));
                }
                return mine;
              }));
    }
    go.countDown();
    int answered = 0;
    for (Future<List<CompletableFuture<byte[]>>> p : parts) {
      for (CompletableFuture<byte[]> f : p.get()) {
        if (f.get() == value) {
          answered++;
        }
      }
    }
    if (answered != callers / SUBMITTERS * SUBMITTERS) {
      throw new IllegalStateException("only " + answered + " callers got the bytes");
    }
    bursts++;
    storeGets += gets.get();
    maxGetsPerBurst = Math.max(maxGetsPerBurst, gets.get());
    return gets.get();
  }
}
