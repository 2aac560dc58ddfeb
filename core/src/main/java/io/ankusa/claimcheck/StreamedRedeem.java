package io.ankusa.claimcheck;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.stream.ChunkSource;
import io.ankusa.claimcheck.store.StoreException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link ClaimCheck.ClaimStream} over the redeemer's {@link ChunkSource}: its failures given
 * their public type, and the blocking {@link java.io.InputStream} view; one reader at a time (not
 * thread-safe).
 *
 * <p>A blocking read waits for the next piece at most the chunk deadline plus a grace (the reader
 * answers by the deadline itself); past it, or when interrupted (the flag restored), it throws
 * {@code UNAVAILABLE}. A failure is thrown again by every later read.
 */
final class StreamedRedeem extends ClaimCheck.ClaimStream {

  private final ChunkSource source;
  private final long waitNanos;
  private ByteBuffer piece;
  private boolean ended;
  private RuntimeException failed;

  StreamedRedeem(ChunkSource source, Duration chunkDeadline) {
    this.source = source;
    this.waitNanos = chunkDeadline.toNanos() + BlockingRedeem.GRACE_NANOS;
  }

  @Override
  public long length() {
    return source.length();
  }

  @Override
  public CompletableFuture<ByteBuffer> nextChunk() {
    CompletableFuture<ByteBuffer> f;
    try {
      f = source.next();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    return Failures.of(f);
  }

  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(len, piece.remaining());
    piece.get(b, off, n);
    return n;
  }

  @Override
  public int available() {
    return piece == null ? 0 : piece.remaining();
  }

  /** Whether a piece with bytes is at hand; false at the verified end. */
  private boolean fill() {
    if (failed != null) {
      throw failed;
    }
    while (piece == null || !piece.hasRemaining()) {
      if (ended) {
        return false;
      }
      CompletableFuture<ByteBuffer> f = source.next();
      try {
        piece = f.get(waitNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw fail(unavailable("interrupted while reading a streamed claim", e));
      } catch (TimeoutException e) {
        throw fail(unavailable("no chunk of the streamed claim came in time", e));
      } catch (ExecutionException e) {
        Throwable c = StoreException.unwrap(e.getCause());
        if (c instanceof Error err) {
          throw err;
        }
        throw fail(
            c instanceof Failure fl
                ? Failures.of(fl)
                : c instanceof ClaimCheckFailure ccf
                    ? ccf
                    : unavailable("the streamed redeem failed: " + c, c));
      }
      if (piece == null) {
        ended = true;
        return false;
      }
    }
    return true;
  }

  private RuntimeException fail(RuntimeException e) {
    failed = e;
    source.close();
    return e;
  }

  private static ClaimCheckFailure unavailable(String message, Throwable cause) {
    return new ClaimCheckFailure(ClaimCheckFailure.Reason.UNAVAILABLE, message, cause);
  }

  @Override
  public void close() {
    source.close();
  }
}
