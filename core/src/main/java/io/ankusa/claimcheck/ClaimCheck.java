package io.ankusa.claimcheck;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.time.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Checks claims in to the configured stores and redeems refs through the shared reader;
 * implementations are thread-safe.
 *
 * <p>Every {@code ClaimCheck} opened with an equal store configuration in one process shares one
 * store set (so one set of breakers) and one reader (one cache, one request gate); closing the last
 * one closes them. Failures are {@link ClaimCheckFailure}s.
 */
public interface ClaimCheck extends AutoCloseable {

  /**
   * The config-map key under which a Micrometer {@code MeterRegistry} may be passed (an object, not
   * a string); absent means Micrometer's global registry.
   */
  String METER_REGISTRY = ClaimCheckConfig.METER_REGISTRY;

  /**
   * Opens a claim check for {@code config}, validating it ({@code ConfigException} naming the key).
   */
  static ClaimCheck open(Map<String, ?> config) {
    return open(new ClaimCheckConfig(config), config.get(METER_REGISTRY), Ticker.system());
  }

  /**
   * Opens a claim check for a validated {@code config}; {@code meterRegistry} is a Micrometer
   * {@code MeterRegistry} or null (the global one); {@code ticker} is the clock every deadline is
   * read on.
   */
  static ClaimCheck open(ClaimCheckConfig config, Object meterRegistry, Ticker ticker) {
    return SharedClaimCheck.open(config, meterRegistry, ticker);
  }

  /**
   * Checks {@code value} in as a one-claim pack under a fresh random pack id (compressed as
   * configured) and returns its ref once a store durably holds it; blocks at most the write
   * deadline (the largest store op deadline).
   */
  ClaimRef checkIn(byte[] value);

  /**
   * Checks {@code key} in under a pack id derived from its content, so one key always yields one
   * ref; checking the same key in again returns the same ref.
   */
  ClaimRef checkInKey(byte[] key);

  /** Checks {@code values} in as one pack (one PUT) and returns their refs in order. */
  List<ClaimRef> checkInAll(List<byte[]> values);

  /**
   * Checks {@code length} bytes of {@code source} in as one <b>streamed claim</b> (or all of it up
   * to its end, when {@code length} is -1), compressed with zstd when {@code
   * claimcheck.compression.type} is {@code zstd} and stored as it is otherwise, and returns its ref
   * once a store durably holds the whole claim; see {@link #checkIn(InputStream, long, Codec)}.
   */
  default ClaimRef checkIn(InputStream source, long length) throws IOException {
    String configured = config().getString(ClaimCheckConfig.COMPRESSION_TYPE);
    return checkIn(source, length, "zstd".equalsIgnoreCase(configured) ? Codec.ZSTD : Codec.NONE);
  }

  /**
   * Checks {@code length} bytes of {@code source} in as one streamed claim stored as {@code codec}
   * ({@code NONE} or {@code ZSTD}: the codecs streamed), blocking while the calling thread reads
   * {@code source} and one store takes it (an S3 multipart upload, a few parts in memory at once,
   * however long the claim), and returns its ref once the store durably holds the whole claim. The
   * ref ({@link ClaimRef#isStreamed() streamed}, version 4) carries the stored length and the
   * CRC32C computed on the way; readers older than this library answer it {@code UNAVAILABLE}
   * ("upgrade the reader"). The claim may be up to {@code claimcheck.stream.max.bytes}; past it,
   * {@code REFUSED} (before any store request when {@code length} says so) and nothing stays
   * stored. The stores are tried in write order only until one has read from {@code source}. Where
   * the tenant's claims are encrypted ({@code claimcheck.encryption.kek}), the claim is compressed,
   * then sealed while streaming into an envelope of 32 KiB segments, and its ref is version 5
   * ({@link ClaimRef#isEncrypted() encrypted} and streamed).
   *
   * @throws IOException when reading {@code source} failed, or it ended before {@code length}
   * @throws ClaimCheckFailure {@code REFUSED} past the limit, {@code UNAVAILABLE} when no store
   *     took it or the KEK gave no data key (retriable: check the claim in again from its start)
   * @throws IllegalArgumentException for an empty claim, or a codec other than NONE and ZSTD
   */
  default ClaimRef checkIn(InputStream source, long length, Codec codec) throws IOException {
    throw new ClaimCheckFailure(
        ClaimCheckFailure.Reason.UNAVAILABLE,
        "this claim check cannot check streamed claims in",
        null);
  }

  /**
   * Redeems {@code ref}: reads its bytes through the shared reader by the absolute {@code
   * deadlineNanos} (on {@link #ticker()}), verifies length and checksum, and decompresses. The
   * returned array is the caller's own.
   */
  CompletableFuture<byte[]> redeem(ClaimRef ref, long deadlineNanos);

  /**
   * Redeems {@code length} bytes of {@code ref}'s claim from byte {@code offset} of its (raw)
   * bytes, by the absolute {@code deadlineNanos}; the returned array is the caller's own.
   *
   * <p>A range of an uncompressed claim ({@code Codec.NONE}) is read alone: one ranged store read
   * of just those bytes through the shared reader (coalescing, the AIMD limit, the deadline and the
   * cache apply), judged against {@code claimcheck.read.max.bytes} by its own length, and <b>not
   * verified</b>: the checksum covers the whole claim, so a part cannot be checked (as an S3 ranged
   * GET). A range that is the whole claim, and any range of a compressed claim, is a verified
   * {@link #redeem} of the whole claim, cut. The default redeems the whole claim and cuts it.
   *
   * @throws IllegalArgumentException if the range is empty or lies outside the claim
   */
  default CompletableFuture<byte[]> redeemRange(
      ClaimRef ref, long offset, long length, long deadlineNanos) {
    if (offset < 0 || length <= 0 || offset + length < 0) {
      throw new IllegalArgumentException("bad range " + offset + "+" + length);
    }
    return redeem(ref, deadlineNanos)
        .thenApply(
            b -> {
              if (offset + length > b.length) {
                throw new IllegalArgumentException(
                    "range " + offset + "+" + length + " lies outside the claim's " + b.length);
              }
              return java.util.Arrays.copyOfRange(b, (int) offset, (int) (offset + length));
            });
  }

  /**
   * Redeems {@code ref}'s claim as a stream of its raw bytes, for a ref of either kind (a streamed
   * claim's, or a packed one's), where every chunk has {@code chunkDeadline} from when it is asked
   * for; never blocks. Chunks are ranged store reads through the shared reader (coalescing, the
   * AIMD limit, retries, breakers and failover apply, per chunk), read a few ahead and decompressed
   * as they come, so memory is a few chunks whatever the claim's length; they are not cached. A
   * claim of at most one chunk, and a packed compressed claim, is one verified whole redeem
   * (cached), served from memory. The checksum covers the whole claim, so it is verified at the
   * end: a claim that does not verify fails the last read with {@code CORRUPT} (after a second look
   * straight at the store) or {@code UNAVAILABLE} — never a silent wrong end. The claim may be up
   * to {@code claimcheck.stream.max.bytes}. The default redeems the claim whole.
   */
  default ClaimStream redeemStream(ClaimRef ref, Duration chunkDeadline) {
    return ClaimStream.of(
        redeem(ref, ticker().read() + chunkDeadline.toNanos()), ref.rawLength(), chunkDeadline);
  }

  /**
   * Whether {@code ref}'s claim is held, without transferring it: the reader's cache, else a stat
   * of its pack in the stores, by the absolute {@code deadlineNanos}. {@code false} only when every
   * store answered "not found" and a second look agrees; a store that could not answer fails the
   * future {@code UNAVAILABLE}. {@code true} says the pack is there (only a redeem verifies the
   * bytes). The default redeems the claim.
   */
  default CompletableFuture<Boolean> exists(ClaimRef ref, long deadlineNanos) {
    return redeem(ref, deadlineNanos)
        .handle(
            (b, e) -> {
              if (e == null) {
                return true;
              }
              Throwable c =
                  e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
              if (c instanceof ClaimCheckFailure f
                  && f.reason() == ClaimCheckFailure.Reason.NOT_FOUND) {
                return false;
              }
              throw e instanceof java.util.concurrent.CompletionException ce
                  ? ce
                  : new java.util.concurrent.CompletionException(e);
            });
  }

  /**
   * Redeems {@code ref} on the calling thread, as every Kafka surface does: the thread takes one
   * permit of the process's request gate ({@code claimcheck.max.concurrent.reads}) and gives it
   * back before returning; it waits for {@link #redeem} until {@code deadlineNanos} (on {@link
   * #ticker()}) plus a short grace; and returns the caller's own bytes.
   *
   * @throws ClaimCheckFailure for every failure: {@code UNAVAILABLE} when the gate is full, no
   *     answer came in time, or the thread was interrupted (its interrupt flag is restored); the
   *     redeem's own reason otherwise
   * @throws Error an {@link Error} met while redeeming (such as {@link OutOfMemoryError}), as
   *     itself: it is not a failure of the stores, and is never reported as retriable
   */
  default byte[] redeemBlocking(ClaimRef ref, long deadlineNanos) {
    return BlockingRedeem.redeem(this, ref, deadlineNanos);
  }

  /**
   * Registers the intent to prefetch {@code ref}'s claim into the shared reader's cache and returns
   * its pending {@link Prefetch}, or null when there is nothing to prefetch into: the cache keeps
   * nothing, the claim is cached already, another prefetch holds it, its tenant is not {@link
   * #allows allowed}, or this claim check has no shared reader (one not opened by {@link #open});
   * never blocks. {@code onRead} runs once, on the redeeming thread, when a redeem of the claim
   * ends the prefetch; it must not block.
   */
  default Prefetch prefetch(ClaimRef ref, Runnable onRead) {
    return null;
  }

  /**
   * Counts one request at the process's request gate ({@code claimcheck.max.concurrent.reads}, the
   * gate {@link #redeemBlocking} uses) and returns its permit, which any thread may close; or null
   * when the gate is full, so a server answers "overloaded" before it decodes or locates anything.
   * Never blocks; with the gate unbounded every request is admitted.
   */
  default RequestPermit admitRequest() {
    return RequestPermits.admit(this);
  }

  /** Whether refs of {@code tenant} may be redeemed here ({@code claimcheck.tenants.allowed}). */
  boolean allows(String tenant);

  /** The clock deadlines are read on. */
  Ticker ticker();

  /** The validated configuration. */
  ClaimCheckConfig config();

  /** Releases this handle; the last handle of a store configuration closes it. Idempotent. */
  @Override
  void close();

  /**
   * A redeemed claim's raw bytes as a stream ({@link ClaimCheck#redeemStream}): read it as an
   * {@link InputStream} (blocking, each read at most a chunk's deadline), or chunk by chunk without
   * blocking ({@link #nextChunk}) — one or the other, by one reader at a time. Its end is verified:
   * a read that would end a claim that does not verify throws {@link ClaimCheckFailure} ({@code
   * CORRUPT} or {@code UNAVAILABLE}) instead; every failure is a {@code ClaimCheckFailure} (an
   * {@link Error} as itself). Close it to release its decoder.
   */
  abstract class ClaimStream extends InputStream {

    /** For implementations of {@link ClaimCheck#redeemStream}. */
    protected ClaimStream() {}

    /** The claim's raw length as its ref records it; -1 when it does not (a v1 compressed ref). */
    public abstract long length();

    /**
     * The next piece of the claim (at least one byte, the caller's own), or null at its verified
     * end; completes exceptionally with a {@link ClaimCheckFailure}. Call again only once the
     * previous future completed.
     */
    public abstract CompletableFuture<java.nio.ByteBuffer> nextChunk();

    /** Stops reading and releases the decoder; fetches under way finish unobserved. Idempotent. */
    @Override
    public abstract void close();

    /** A stream of {@code whole}'s bytes, the claim redeemed whole. */
    static ClaimStream of(CompletableFuture<byte[]> whole, long length, Duration chunkDeadline) {
      return new StreamedRedeem(
          io.ankusa.claimcheck.internal.stream.ChunkSource.of(whole, length), chunkDeadline);
    }
  }

  /**
   * One claim fetched ahead of its redeem into the shared reader's cache and held there, never
   * evicted, until the first redeem of it or until released; thread-safe.
   *
   * <p>{@link ClaimCheck#prefetch} returns it pending: nothing fetched, nothing reserved. Its
   * prefetcher then {@link #reserve reserves} the claim's stored bytes in the cache and, when that
   * {@link Start#STARTED started}, calls {@link #fetch} once. The prefetch ends at the first redeem
   * of the claim by anyone (the {@code onRead} given to {@link ClaimCheck#prefetch} runs, on the
   * redeeming thread) or at {@link #release}. A redeem that comes before the fetch ends it too, and
   * the fetch is then never made, so no claim is fetched twice. The reserved bytes count in the
   * cache's bound, so pins never push it past its size.
   */
  interface Prefetch {

    /** What {@link #reserve} did. */
    enum Start {
      /** Reserved: call {@link #fetch} now. */
      STARTED,
      /**
       * Ended and never to be fetched: redeemed already, released, the claim is cached, or it
       * weighs more than the whole cache.
       */
      GONE,
      /** Still pending: the prefetches hold all the cache may reserve; try again later. */
      NO_ROOM
    }

    /**
     * Reserves the claim's stored bytes in the cache; never blocks. Until {@link #fetch} returns, a
     * redeem of the claim by another thread still ends the prefetch (the fetch then caches the
     * bytes as an ordinary, evictable entry).
     */
    Start reserve();

    /**
     * After {@link Start#STARTED}: fetches the claim into the cache by {@code deadlineNanos} (on
     * {@link ClaimCheck#ticker()}), verified against its ref before it is cached, without a copy
     * for the caller; never blocks. The future completes when the fetch ended, exceptionally when
     * it failed (nothing is cached then; the redeem that reads the claim reports the failure
     * itself).
     */
    CompletableFuture<?> fetch(long deadlineNanos);

    /**
     * Gives the prefetch up: its reservation is returned and its bytes, if they arrived, become an
     * ordinary (evictable) cache entry; does nothing to an ended prefetch. Idempotent.
     */
    void release();
  }

  /**
   * One request counted by the process's request gate ({@code claimcheck.max.concurrent.reads})
   * until {@link #close closed}; thread-safe: any thread may close it, and closing is idempotent.
   *
   * <p>Unlike the permit {@link ClaimCheck#redeemBlocking} takes, it belongs to no thread, so a
   * server that answers a request on another thread than the one that admitted it (an asynchronous
   * HTTP server) gives it back from there. A permit never closed stays counted until the process
   * ends: close it in a {@code finally} or a completion callback.
   */
  interface RequestPermit extends AutoCloseable {

    /** Gives the permit back; later calls do nothing. */
    @Override
    void close();
  }
}
