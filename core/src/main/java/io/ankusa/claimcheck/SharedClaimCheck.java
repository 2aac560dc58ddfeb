package io.ankusa.claimcheck;

import io.ankusa.claimcheck.ClaimCheck.Prefetch;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.Runtimes;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.redeem.Admission;
import io.ankusa.claimcheck.internal.redeem.Existence;
import io.ankusa.claimcheck.internal.redeem.RangedRedeemer;
import io.ankusa.claimcheck.internal.redeem.Redeemer;
import io.ankusa.claimcheck.internal.stream.StreamCheckIns;
import io.ankusa.claimcheck.internal.stream.StreamRedeemer;
import io.ankusa.claimcheck.internal.write.CheckIns;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.time.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.Cleaner;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * One handle on a shared runtime, the {@link ClaimCheck} that {@link ClaimCheck#open} returns: a
 * thin composition of the writer ({@link CheckIns}) and the redeemer ({@link Redeemer}) that gives
 * their failures the public type; thread-safe.
 *
 * <p>A handle that becomes unreachable without being closed is released by a {@link Cleaner}: Kafka
 * Streams, for one, never closes the default serdes it creates, and without this their handles
 * would keep the shared stores and reader open until the JVM exits.
 */
final class SharedClaimCheck implements ClaimCheck, ReaderAccess {

  private final ClaimCheckConfig config;
  private final Runtimes.Runtime rt;
  private final Ticker ticker;
  private final CheckIns writer;
  private final Redeemer redeemer;
  private final RangedRedeemer ranges;
  private final Existence existence;
  private final StreamCheckIns streamWriter;
  private final StreamRedeemer streams;
  private final Cleaner.Cleanable release;

  /** A handle on {@code rt}, which must already count it (tests build runtimes of fakes). */
  SharedClaimCheck(ClaimCheckConfig config, Runtimes.Runtime rt, Ticker ticker) {
    this.config = config;
    this.rt = rt;
    this.ticker = ticker;
    this.writer =
        new CheckIns(
            rt.stores,
            rt.telemetry,
            ticker,
            Tenant.of(config.tenant()),
            Codec.valueOf(
                config.getString(ClaimCheckConfig.COMPRESSION_TYPE).toUpperCase(Locale.ROOT)),
            config.writeMaxBytes(),
            rt.encryption);
    Admission admission = new Admission(config.tenantsAllowed(), config.readMaxBytes());
    long searchNanos = config.readDeadline().toNanos();
    this.redeemer =
        new Redeemer(rt.stores, rt.reader, ticker, searchNanos, admission, rt.encryption);
    this.ranges =
        new RangedRedeemer(rt.stores, rt.reader, ticker, searchNanos, admission, redeemer);
    this.existence = new Existence(rt.stores, rt.reader, ticker, searchNanos, admission);
    this.streamWriter =
        new StreamCheckIns(
            rt.stores,
            rt.telemetry,
            ticker,
            Tenant.of(config.tenant()),
            config.streamWriteMaxBytes(),
            rt.encryption);
    this.streams =
        new StreamRedeemer(
            rt.stores,
            rt.reader,
            ticker,
            redeemer,
            rt.encryption,
            config.streamReadMaxBytes(),
            config.readMaxBytes());
    this.release = Runtimes.CLEANER.register(this, new Release(rt));
  }

  static ClaimCheck open(ClaimCheckConfig config, Object meterRegistry, Ticker ticker) {
    return new SharedClaimCheck(
        config, Runtimes.acquire(Runtimes.key(config, meterRegistry, ticker)), ticker);
  }

  @Override
  public ClaimRef checkIn(byte[] value) {
    boolean alone = rt.checkInsInFlight.getAndIncrement() == 0;
    try (InlineCalls.Scope s = inlineIf(alone)) {
      return writer.checkIn(value);
    } catch (Failure f) {
      throw Failures.of(f);
    } finally {
      rt.checkInsInFlight.decrementAndGet();
    }
  }

  @Override
  public ClaimRef checkInKey(byte[] key) {
    boolean alone = rt.checkInsInFlight.getAndIncrement() == 0;
    try (InlineCalls.Scope s = inlineIf(alone)) {
      return writer.checkInKey(key);
    } catch (Failure f) {
      throw Failures.of(f);
    } finally {
      rt.checkInsInFlight.decrementAndGet();
    }
  }

  @Override
  public List<ClaimRef> checkInAll(List<byte[]> values) {
    boolean alone = rt.checkInsInFlight.getAndIncrement() == 0;
    try (InlineCalls.Scope s = inlineIf(alone)) {
      return writer.checkInAll(values);
    } catch (Failure f) {
      throw Failures.of(f);
    } finally {
      rt.checkInsInFlight.decrementAndGet();
    }
  }

  /**
   * A check-in blocks its thread until its write ends, so the write may run on that thread ({@link
   * InlineCalls}) — but only when no other check-in on this store set is in flight: concurrent
   * writers share the asynchronous client's connections better than each its own blocking call
   * (DropInHarness, 16 threads).
   */
  private static InlineCalls.Scope inlineIf(boolean alone) {
    return alone ? InlineCalls.allow() : InlineCalls.suspend();
  }

  @Override
  public ClaimRef checkIn(InputStream source, long length, Codec codec) throws IOException {
    try {
      return streamWriter.checkIn(source, length, codec);
    } catch (Failure f) {
      throw Failures.of(f);
    }
  }

  @Override
  public ClaimStream redeemStream(ClaimRef ref, Duration chunkDeadline) {
    return new StreamedRedeem(streams.open(ref, chunkDeadline.toNanos()), chunkDeadline);
  }

  @Override
  public CompletableFuture<byte[]> redeem(ClaimRef ref, long deadlineNanos) {
    return Failures.of(redeemer.redeem(ref, deadlineNanos));
  }

  @Override
  public CompletableFuture<byte[]> redeemRange(
      ClaimRef ref, long offset, long length, long deadlineNanos) {
    return Failures.of(ranges.redeemRange(ref, offset, length, deadlineNanos));
  }

  @Override
  public CompletableFuture<Boolean> exists(ClaimRef ref, long deadlineNanos) {
    return Failures.of(existence.exists(ref, deadlineNanos));
  }

  /**
   * Fetches {@code ref}'s claim into the reader for a redeem to come: the same refusals as {@link
   * #redeem}, then the reader's fetch alone, without the caller's copy (a prefetch's copy was
   * dropped unread: one clone and two checksums of every prefetched claim).
   */
  CompletableFuture<?> warm(ClaimRef ref, long deadlineNanos) {
    return Failures.of(redeemer.warm(ref, deadlineNanos));
  }

  @Override
  public Prefetch prefetch(ClaimRef ref, Runnable onRead) {
    Objects.requireNonNull(onRead, "onRead");
    // A streamed claim may be far larger than the cache: it is redeemed as a stream, never pinned.
    return allows(ref.tenant().value()) && !ref.isStreamed()
        ? PinnedPrefetch.register(this, rt.reader, ref, onRead)
        : null;
  }

  @Override
  public boolean allows(String t) {
    return redeemer.allows(t);
  }

  @Override
  public Ticker ticker() {
    return ticker;
  }

  @Override
  public ClaimReader reader() {
    return rt.reader;
  }

  @Override
  public ClaimCheckConfig config() {
    return config;
  }

  /** Releases this handle; idempotent (the cleaner runs the release at most once). */
  @Override
  public void close() {
    release.clean();
  }

  /** Releases one handle on a runtime; must not refer to the handle, or it would never be freed. */
  private record Release(Runtimes.Runtime rt) implements Runnable {
    @Override
    public void run() {
      Runtimes.release(rt);
    }
  }
}
