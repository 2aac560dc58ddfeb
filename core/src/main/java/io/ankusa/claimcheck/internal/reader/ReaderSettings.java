package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.MicrometerTelemetry;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Objects;

/**
 * What a {@link ClaimReader} is built from; immutable and validated when built, so an invalid value
 * fails with an {@link IllegalArgumentException} naming the field, before any reader exists.
 * Equality covers every field (the ticker, telemetry and scheduler compare with their own {@code
 * equals}), so equal configurations can share one reader.
 *
 * @param numStores how many stores reads are charged to (store indexes 0 .. numStores-1), >= 1
 * @param maxInflight the ceiling (and start) of each store's adaptive limit, >= 1 (default 64)
 * @param queueMax fetches that may wait for a free slot per store, >= 0 (default 1000)
 * @param maxConcurrentReads requests the gate admits at once, >= 0; 0 = unbounded (default 0)
 * @param cacheMaxBytes the cache's bound in bytes, >= 0; 0 = no cache (default 64 MiB)
 * @param ticker the clock deadlines are read against (default {@link Ticker#system()})
 * @param telemetry where reads are reported (default {@link MicrometerTelemetry#global()})
 * @param scheduler runs deadlines, retry backoffs and the tick (default {@link
 *     ReaderScheduler#system()})
 * @param retry the backoff between attempts of a throttled or unavailable fetch (default {@link
 *     Backoff#DEFAULT}: 50 ms base, 2 s cap, full jitter)
 */
public record ReaderSettings(
    int numStores,
    int maxInflight,
    int queueMax,
    int maxConcurrentReads,
    long cacheMaxBytes,
    Ticker ticker,
    ClaimCheckTelemetry telemetry,
    ReaderScheduler scheduler,
    Backoff retry) {

  /** The default {@code maxInflight}. */
  public static final int DEFAULT_MAX_INFLIGHT = 64;

  /** The default {@code queueMax}. */
  public static final int DEFAULT_QUEUE_MAX = 1000;

  /** The default {@code maxConcurrentReads} (unbounded). */
  public static final int DEFAULT_MAX_CONCURRENT_READS = 0;

  /** The default {@code cacheMaxBytes}: 64 MiB. */
  public static final long DEFAULT_CACHE_MAX_BYTES = 64L << 20;

  /** Validates every field; throws {@link IllegalArgumentException} naming the first bad one. */
  public ReaderSettings {
    atLeast("numStores", numStores, 1);
    atLeast("maxInflight", maxInflight, 1);
    atLeast("queueMax", queueMax, 0);
    atLeast("maxConcurrentReads", maxConcurrentReads, 0);
    atLeast("cacheMaxBytes", cacheMaxBytes, 0);
    if (ticker == null) {
      throw new IllegalArgumentException("ticker must not be null");
    }
    if (telemetry == null) {
      throw new IllegalArgumentException("telemetry must not be null");
    }
    if (scheduler == null) {
      throw new IllegalArgumentException("scheduler must not be null");
    }
    if (retry == null) {
      throw new IllegalArgumentException("retry must not be null");
    }
  }

  private static void atLeast(String field, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(field + " must be >= " + min + ", was " + value);
    }
  }

  /** Returns a builder for {@code numStores} stores, every other field at its default. */
  public static Builder builder(int numStores) {
    return new Builder(numStores);
  }

  /** Returns a builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder(numStores)
        .maxInflight(maxInflight)
        .queueMax(queueMax)
        .maxConcurrentReads(maxConcurrentReads)
        .cacheMaxBytes(cacheMaxBytes)
        .ticker(ticker)
        .telemetry(telemetry)
        .scheduler(scheduler)
        .retry(retry);
  }

  /** Builds {@link ReaderSettings}; not thread-safe; {@link #build()} validates. */
  public static final class Builder {
    private final int numStores;
    private int maxInflight = DEFAULT_MAX_INFLIGHT;
    private int queueMax = DEFAULT_QUEUE_MAX;
    private int maxConcurrentReads = DEFAULT_MAX_CONCURRENT_READS;
    private long cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES;
    private Ticker ticker = Ticker.system();
    private ClaimCheckTelemetry telemetry;
    private ReaderScheduler scheduler = ReaderScheduler.system();
    private Backoff retry = Backoff.DEFAULT;

    private Builder(int numStores) {
      this.numStores = numStores;
    }

    /** Sets the ceiling and start of each store's limit. */
    public Builder maxInflight(int v) {
      this.maxInflight = v;
      return this;
    }

    /** Sets how many fetches may wait per store. */
    public Builder queueMax(int v) {
      this.queueMax = v;
      return this;
    }

    /** Sets how many requests the gate admits at once (0 = unbounded). */
    public Builder maxConcurrentReads(int v) {
      this.maxConcurrentReads = v;
      return this;
    }

    /** Sets the cache's bound in bytes (0 = no cache). */
    public Builder cacheMaxBytes(long v) {
      this.cacheMaxBytes = v;
      return this;
    }

    /** Sets the clock. */
    public Builder ticker(Ticker v) {
      this.ticker = Objects.requireNonNull(v, "ticker");
      return this;
    }

    /** Sets the telemetry sink. */
    public Builder telemetry(ClaimCheckTelemetry v) {
      this.telemetry = Objects.requireNonNull(v, "telemetry");
      return this;
    }

    /** Sets the timer scheduler. */
    public Builder scheduler(ReaderScheduler v) {
      this.scheduler = Objects.requireNonNull(v, "scheduler");
      return this;
    }

    /** Sets the backoff between attempts of a throttled or unavailable fetch. */
    public Builder retry(Backoff v) {
      this.retry = Objects.requireNonNull(v, "retry");
      return this;
    }

    /** Returns validated settings; throws {@link IllegalArgumentException} naming a bad field. */
    public ReaderSettings build() {
      return new ReaderSettings(
          numStores,
          maxInflight,
          queueMax,
          maxConcurrentReads,
          cacheMaxBytes,
          ticker,
          telemetry != null ? telemetry : MicrometerTelemetry.global(),
          scheduler,
          retry);
    }
  }
}
