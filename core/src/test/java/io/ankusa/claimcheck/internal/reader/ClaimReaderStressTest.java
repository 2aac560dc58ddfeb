package io.ankusa.claimcheck.internal.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.ReadOutcome;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many threads hammer few keys on two stores for about a second, with store faults switched on and
 * off, real timers and short deadlines. Checks: every caller gets exactly one answer, and a right
 * one; every caller is counted once; store requests never exceed the ceiling; queues never exceed
 * their bound; and nothing leaks — gate, inflight, queued and the coalescing map are back to zero
 * at the end. Bounded by wall time, not by sleeping.
 */
class ClaimReaderStressTest {

  private static final int STORES = 2;
  private static final int KEYS = 6;
  private static final int MAX_INFLIGHT = 4;
  private static final int QUEUE_MAX = 3;
  private static final int THREADS = 8;
  private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(1200);

  private final ScheduledThreadPoolExecutor storeThreads = new ScheduledThreadPoolExecutor(2);
  private final AtomicInteger[] running = {new AtomicInteger(), new AtomicInteger()};
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final AtomicInteger storeCalls = new AtomicInteger();
  private final java.util.Set<Object> askedFlights =
      java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final AtomicLong ops = new AtomicLong();
  private final AtomicInteger leaked = new AtomicInteger();
  private final Queue<String> problems = new ConcurrentLinkedQueue<>();

  private static byte[] value(int key) {
    return ("value-" + key).getBytes(StandardCharsets.UTF_8);
  }

  /** A store request: answers or fails by the current fault phase, at once or a bit later. */
  private Supplier<CompletableFuture<byte[]>> fn(int store, int key) {
    Object flight = new Object(); // a flight calls its starter's function once per attempt
    return () -> {
      askedFlights.add(flight);
      int now = running[store].incrementAndGet();
      maxRunning.accumulateAndGet(now, Math::max);
      storeCalls.incrementAndGet();
      ThreadLocalRandom r = ThreadLocalRandom.current();
      long phase = (ops.get() / 3000) % 3; // 0: healthy, 1: throttling, 2: mixed failures
      StoreException failure = null;
      if (phase == 1 && r.nextInt(2) == 0) {
        failure = new StoreException(StoreException.Kind.THROTTLED, "slow down");
      } else if (phase == 2 && r.nextInt(3) == 0) {
        StoreException.Kind[] kinds = StoreException.Kind.values();
        failure = new StoreException(kinds[r.nextInt(4)], "fault");
      }
      CompletableFuture<byte[]> f = new CompletableFuture<>();
      StoreException fail = failure;
      Runnable answer =
          () -> {
            running[store].decrementAndGet();
            if (fail == null) {
              f.complete(value(key));
            } else {
              f.completeExceptionally(fail);
            }
          };
      int mode = r.nextInt(10);
      if (mode == 0) {
        answer.run();
      } else if (mode < 8) {
        storeThreads.schedule(answer, r.nextInt(500), TimeUnit.MICROSECONDS);
      } else {
        storeThreads.schedule(answer, 20 + r.nextInt(10), TimeUnit.MILLISECONDS); // outlives
      }
      return f;
    };
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 40})
  void manyThreadsOnFewKeysWithFaultsSwitchingOnAndOff(long cacheMaxBytes) throws Exception {
    RecordingTelemetry telemetry = new RecordingTelemetry();
    DefaultClaimReader reader =
        (DefaultClaimReader)
            ClaimReaders.create(
                ReaderSettings.builder(STORES)
                    .maxInflight(MAX_INFLIGHT)
                    .queueMax(QUEUE_MAX)
                    .maxConcurrentReads(THREADS - 1)
                    .cacheMaxBytes(cacheMaxBytes)
                    .telemetry(telemetry)
                    .build());
    Ticker ticker = Ticker.system();
    AtomicInteger fetches = new AtomicInteger();
    AtomicInteger refusedAdmits = new AtomicInteger();
    AtomicInteger maxQueued = new AtomicInteger();
    long end = System.nanoTime() + RUN_NANOS;
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      boolean housekeeper = t == 0;
      workers.add(
          new Thread(
              () -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                int mine = 0;
                while (System.nanoTime() < end) {
                  ops.incrementAndGet();
                  if (housekeeper && ++mine % 200 == 0) {
                    leakAPermit(reader);
                    reader.tick(); // reclaims concurrently with the others' admits and releases
                  }
                  if (!reader.admit()) {
                    refusedAdmits.incrementAndGet();
                    Thread.yield();
                    continue;
                  }
                  int store = r.nextInt(STORES);
                  int key = r.nextInt(KEYS);
                  fetches.incrementAndGet();
                  CompletableFuture<byte[]> f =
                      reader.fetch(
                          FetchKey.range("t", "ab", 64L * key, 64),
                          store,
                          fn(store, key),
                          ticker.read() + TimeUnit.MICROSECONDS.toNanos(200 + r.nextInt(8000)));
                  check(f, key);
                  for (StoreStats s : reader.stats().values()) {
                    maxQueued.accumulateAndGet(s.queued(), Math::max);
                  }
                  reader.release();
                }
              },
              "stress-" + t));
    }
    workers.forEach(Thread::start);
    for (Thread w : workers) {
      w.join();
    }
    storeThreads.shutdown();
    assertThat(storeThreads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    reader.tick();

    System.out.printf(
        "cache=%d fetches=%d storeCalls=%d refusedAdmits=%d leaked=%d reads=%s%n",
        cacheMaxBytes,
        fetches.get(),
        storeCalls.get(),
        refusedAdmits.get(),
        leaked.get(),
        telemetry.reads);
    assertThat(problems).isEmpty();
    assertThat(fetches.get()).as("enough traffic to mean something").isGreaterThan(200);
    assertThat(telemetry.reads.keySet())
        .as("stored, coalesced and shed callers all occurred")
        .anyMatch(k -> k.endsWith("STORE"))
        .anyMatch(k -> k.endsWith("COALESCED"))
        .anyMatch(k -> k.endsWith("SHED"));
    assertThat(maxRunning.get()).as("store requests at once").isLessThanOrEqualTo(MAX_INFLIGHT);
    assertThat(maxQueued.get()).isLessThanOrEqualTo(QUEUE_MAX);
    assertThat(reader.admitted()).as("gate back to zero").isZero();
    assertThat(reader.flightCount()).as("no flight left behind").isZero();
    for (StoreStats s : reader.stats().values()) {
      assertThat(s.inflight()).isZero();
      assertThat(s.queued()).isZero();
      assertThat(s.limit()).isBetween(1, MAX_INFLIGHT);
    }
    assertThat(telemetry.reads(0, ReadOutcome.STORE) + telemetry.reads(1, ReadOutcome.STORE))
        .as("one STORE count per flight that asked its store")
        .isEqualTo(askedFlights.size());
    assertThat(storeCalls.get())
        .as("retries are store requests too")
        .isGreaterThanOrEqualTo(askedFlights.size());
    if (cacheMaxBytes == 0) {
      assertThat(telemetry.totalReads()).as("every caller counted once").isEqualTo(fetches.get());
    } else {
      assertThat(telemetry.totalReads()).isLessThanOrEqualTo(fetches.get());
    }
    reader.close();
  }

  /** A request thread that dies holding its permit (a killed request). */
  private void leakAPermit(DefaultClaimReader reader) {
    Thread t =
        new Thread(
            () -> {
              if (reader.admit()) {
                leaked.incrementAndGet();
              }
            });
    t.start();
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void check(CompletableFuture<byte[]> f, int key) {
    try {
      byte[] v = f.get(5, TimeUnit.SECONDS);
      if (!Arrays.equals(v, value(key))) {
        problems.add("wrong bytes for key " + key);
      }
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (!(c instanceof ReadException) && !(c instanceof StoreException)) {
        problems.add("unexpected failure " + c);
      }
    } catch (TimeoutException e) {
      problems.add("a caller got no answer within 5 s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problems.add("interrupted");
    }
    if (!f.isDone()) {
      problems.add("not answered");
    }
  }
}
