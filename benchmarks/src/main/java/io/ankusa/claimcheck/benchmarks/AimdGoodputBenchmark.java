package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.internal.reader.ReadException;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * 64 client threads redeem distinct uncached claims from a simulated store that serves {@code
 * capacity} requests at once in 1 ms each and throttles (503 SlowDown after 0.25 ms) any request
 * above that. The {@code ok} counter is the goodput (successful redeems per second).
 *
 * <p>{@code limiter=aimd} is the reader as shipped (ceiling 64, so it must find the capacity by
 * itself); {@code limiter=oracle} is the baseline: a reader whose ceiling is exactly the capacity,
 * which never overloads the store. Goodput(aimd) / goodput(oracle) from the same run is the figure
 * to read. The limit is sampled every 2 ms during each measured iteration and its min / mean / max
 * printed.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Threads(64)
public class AimdGoodputBenchmark {

  private static final long SERVICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final byte[] VALUE = new byte[512];

  @Param({"8", "16", "32"})
  public int capacity;

  @Param({"aimd", "oracle"})
  public String limiter;

  private ScheduledThreadPoolExecutor storeClock;
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicLong seq = new AtomicLong();
  private ClaimReader reader;
  private long deadlineNanos;
  private volatile boolean sampling;
  private Thread sampler;
  private final AtomicLong samples = new AtomicLong();
  private final AtomicLong sum = new AtomicLong();
  private final AtomicInteger min = new AtomicInteger(Integer.MAX_VALUE);
  private final AtomicInteger max = new AtomicInteger();

  /** Per-thread outcome counts; JMH reports each as a rate per second. */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Outcomes {
    public long ok;
    public long throttled;
    public long shed;
  }

  @Setup(Level.Trial)
  public void setUp() {
    storeClock = new ScheduledThreadPoolExecutor(2);
    int ceiling = limiter.equals("oracle") ? capacity : 64;
    reader =
        ClaimReaders.create(
            ReaderSettings.builder(1)
                .maxInflight(ceiling)
                .queueMax(10_000)
                .cacheMaxBytes(0)
                .telemetry(ClaimCheckTelemetry.noop())
                .build());
    deadlineNanos = TimeUnit.SECONDS.toNanos(5);
    sampling = true;
    sampler =
        new Thread(
            () -> {
              while (sampling) {
                int l = reader.stats().get(0).limit();
                samples.incrementAndGet();
                sum.addAndGet(l);
                min.accumulateAndGet(l, Math::min);
                max.accumulateAndGet(l, Math::max);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
              }
            },
            "limit-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  @Setup(Level.Iteration)
  public void resetSamples() {
    samples.set(0);
    sum.set(0);
    min.set(Integer.MAX_VALUE);
    max.set(0);
  }

  @TearDown(Level.Iteration)
  public void printSamples() {
    long n = Math.max(1, samples.get());
    System.out.printf(
        "%n[aimd] capacity=%d limiter=%s limit min/mean/max = %d / %.1f / %d%n",
        capacity, limiter, min.get(), (double) sum.get() / n, max.get());
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    sampling = false;
    sampler.join();
    reader.close();
    storeClock.shutdownNow();
  }

  private CompletableFuture<byte[]> storeGet() {
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    if (running.incrementAndGet() > capacity) {
      running.decrementAndGet();
      storeClock.schedule(
          () ->
              f.completeExceptionally(
                  new StoreException(StoreException.Kind.THROTTLED, "SlowDown")),
          SERVICE_NANOS / 4,
          TimeUnit.NANOSECONDS);
    } else {
      storeClock.schedule(
          () -> {
            running.decrementAndGet();
            f.complete(VALUE);
          },
          SERVICE_NANOS,
          TimeUnit.NANOSECONDS);
    }
    return f;
  }

  @Benchmark
  public void redeem(Outcomes o) {
    // A fresh range of one pack per call: every redeem misses the cache and reaches the store.
    long n = seq.getAndIncrement() & 0x7fffffffL;
    FetchKey key = FetchKey.range("tenant-a", "00ab", n * VALUE.length, VALUE.length);
    try {
      reader.fetch(key, 0, this::storeGet, Ticker.system().read() + deadlineNanos).join();
      o.ok++;
    } catch (CompletionException e) {
      if (e.getCause() instanceof StoreException) {
        o.throttled++;
      } else if (e.getCause() instanceof ReadException) {
        o.shed++;
      } else {
        throw e;
      }
    }
  }
}
