package io.ankusa.claimcheck.internal.stream;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A redeemed claim's raw bytes, piece by piece, asynchronously; one reader at a time (call {@link
 * #next} again only once its previous future completed).
 */
public interface ChunkSource extends AutoCloseable {

  /**
   * The next piece (at least one byte), or null once the claim ended <em>and verified</em>; fails
   * with a {@code Failure} ({@code CORRUPT} when the end does not verify, after a second look) or
   * an {@code Error}. After a failure every call fails the same way.
   */
  CompletableFuture<ByteBuffer> next();

  /** The claim's raw length as its ref records it; -1 when it does not (a v1 compressed ref). */
  long length();

  /** Stops reading: fetches under way finish unobserved; idempotent. */
  @Override
  void close();

  /** A claim redeemed whole: its one piece, then the end. */
  static ChunkSource of(CompletableFuture<byte[]> whole, long length) {
    return new ChunkSource() {
      private boolean given;

      @Override
      public CompletableFuture<ByteBuffer> next() {
        if (given) {
          return CompletableFuture.completedFuture(null);
        }
        return whole.thenApply(
            b -> {
              given = true;
              return b.length == 0 ? null : ByteBuffer.wrap(b);
            });
      }

      @Override
      public long length() {
        return length;
      }

      @Override
      public void close() {}
    };
  }
}
