package io.ankusa.claimcheck.internal.stream;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.crypto.Encryption;
import io.ankusa.claimcheck.internal.failure.ByteLimits;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.redeem.Redeemer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.CompletableFuture;

/**
 * Redeems refs as streams of raw bytes, for refs of either kind; thread-safe (no state of its own
 * between redeems).
 *
 * <p>A claim that fits one chunk, stored and raw ({@code chunkBytes}), and a compressed claim of a
 * packed ref (at most {@code claimcheck.read.max.bytes}: its codec's stream formats are not
 * streamed here) are the {@link Redeemer}'s whole, verified redeem — cached, coalesced with every
 * other redeem of the claim — handed out as one piece. Anything else is a {@link ChunkedClaim}:
 * ranged chunks through the reader, <b>not cached</b> (a multi-gigabyte stream would flush every
 * claim out of the cache, and is read once), decompressed as they come, verified at the end. The
 * tenant and the streamed limit ({@code claimcheck.stream.max.bytes}) are judged before any store
 * request. An encrypted packed claim (a version-3 ref, never past the whole limits) is the {@link
 * Redeemer}'s whole redeem, which decrypts it; an encrypted streamed claim (version 5) is chunked
 * like any other and decrypted segment by segment as it comes ({@link Decrypting}), each segment
 * verified before its bytes go out; a client that requires encryption refuses a plaintext streamed
 * claim before any store request.
 */
public final class StreamRedeemer {

  /** The stored bytes one chunk reads (one ranged store read). */
  public static final int CHUNK_BYTES = 1 << 20;

  /** How many chunks one stream reads ahead. */
  public static final int WINDOW = 4;

  private final ClaimStores stores;
  private final ClaimReader reader;
  private final Ticker ticker;
  private final Redeemer whole;
  private final Encryption encryption;
  private final long maxBytes;
  private final int chunkBytes;
  private final int window;

  /**
   * Streams over {@code stores} through {@code reader}, of at most {@code maxBytes}; {@code
   * readMaxBytes} is the whole redeem's limit (a claim past it is chunked even if it fits a chunk).
   */
  public StreamRedeemer(
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      Redeemer whole,
      Encryption encryption,
      long maxBytes,
      long readMaxBytes) {
    this(
        stores,
        reader,
        ticker,
        whole,
        encryption,
        maxBytes,
        (int) Math.min(CHUNK_BYTES, readMaxBytes),
        WINDOW);
  }

  /**
   * As above, with {@code chunkBytes} per chunk (at most the whole redeem's limit) and {@code
   * window} chunks ahead (tests).
   */
  public StreamRedeemer(
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      Redeemer whole,
      Encryption encryption,
      long maxBytes,
      int chunkBytes,
      int window) {
    this.stores = stores;
    this.reader = reader;
    this.ticker = ticker;
    this.whole = whole;
    this.encryption = encryption;
    this.maxBytes = maxBytes;
    this.chunkBytes = chunkBytes;
    this.window = window;
  }

  /**
   * Opens {@code ref}'s claim as a stream whose every chunk has {@code chunkNanos} from when it is
   * asked; never blocks. A refusal fails the first {@link ChunkSource#next}.
   */
  public ChunkSource open(ClaimRef ref, long chunkNanos) {
    long size = ByteLimits.limitedSize(ref.length(), ref.rawLength());
    String tenant = ref.tenant().value();
    String claim = "claim " + tenant + "/" + ref.claimId();
    if (!whole.allows(tenant)) {
      return failed(
          new Failure(
              Reason.REFUSED,
              claim + ": tenant " + tenant + " is not in " + ClaimCheckConfig.TENANTS_ALLOWED,
              null),
          ref);
    }
    boolean small = ref.knowsRawLength() && size <= chunkBytes;
    if (small || !ref.isStreamed() && (ref.isEncrypted() || ref.codec() != Codec.NONE)) {
      // The whole redeem admits, verifies and decrypts (and refuses what encryption forbids).
      return ChunkSource.of(whole.redeem(ref, ticker.read() + chunkNanos), ref.rawLength());
    }
    Failure unencrypted = encryption.refusal(ref);
    if (unencrypted != null) {
      return failed(unencrypted, ref);
    }
    if (size > maxBytes) {
      return failed(
          new Failure(
              Reason.REFUSED,
              claim
                  + " of "
                  + size
                  + " bytes exceeds "
                  + ClaimCheckConfig.STREAM_MAX_BYTES
                  + " ("
                  + maxBytes
                  + "): not fetched",
              null),
          ref);
    }
    if (ref.codec() != Codec.NONE && ref.codec() != Codec.ZSTD) {
      return failed(
          new Failure(
              Reason.UNAVAILABLE,
              claim
                  + ": a streamed claim of codec "
                  + ref.codec()
                  + " cannot be streamed by this library: upgrade the reader",
              null),
          ref);
    }
    return new ChunkedClaim(
        ref, stores, reader, ticker, chunkNanos, chunkBytes, window, encryption);
  }

  private static ChunkSource failed(Failure f, ClaimRef ref) {
    return ChunkSource.of(CompletableFuture.failedFuture(f), ref.rawLength());
  }
}
