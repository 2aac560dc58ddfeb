package io.ankusa.claimcheck.internal.stream;

import io.ankusa.claimcheck.ref.Codec;
import java.nio.ByteBuffer;

/**
 * Turns a streamed claim's stored bytes, fed chunk by chunk in order, into its raw bytes, piece by
 * piece; one instance per stream, used by one thread at a time (not thread-safe).
 *
 * <p>Memory is bounded by one fed chunk and one output piece, whatever the claim inflates to. A
 * decoder never hands out a byte past {@code rawLength}: inflating past it, short of it, or a
 * stream that is not valid is a {@link BadStream}.
 */
interface Decoder extends AutoCloseable {

  /** The stored bytes are not a valid stream of the codec, or not {@code rawLength} raw bytes. */
  final class BadStream extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadStream(String message) {
      super(message);
    }
  }

  /** Takes the next stored chunk; call only when {@link #drain} answered null. */
  void feed(byte[] chunk);

  /** The next raw piece from what was fed (at least one byte), or null when it needs more. */
  ByteBuffer drain();

  /** After the last chunk: {@link BadStream} unless the stream ended whole at {@code rawLength}. */
  void finish();

  /** Releases native resources; idempotent. */
  @Override
  void close();

  /** The decoder of {@code codec}, for a claim of {@code rawLength} raw bytes. */
  static Decoder of(Codec codec, long rawLength, int pieceBytes) {
    return switch (codec) {
      case NONE -> new Plain(rawLength);
      case ZSTD -> new ZstdPush(rawLength, pieceBytes);
      default -> throw new IllegalArgumentException("no streamed decoder for " + codec);
    };
  }

  /** Stored bytes that are the raw bytes. */
  final class Plain implements Decoder {
    private final long rawLength;
    private byte[] fed;
    private long produced;

    Plain(long rawLength) {
      this.rawLength = rawLength;
    }

    @Override
    public void feed(byte[] chunk) {
      if (produced + chunk.length > rawLength) {
        throw new BadStream("the claim is longer than the " + rawLength + " bytes its ref records");
      }
      fed = chunk;
    }

    @Override
    public ByteBuffer drain() {
      byte[] b = fed;
      fed = null;
      if (b == null || b.length == 0) {
        return null;
      }
      produced += b.length;
      return ByteBuffer.wrap(b);
    }

    @Override
    public void finish() {
      if (produced != rawLength) {
        throw new BadStream("the claim has " + produced + " bytes, its ref records " + rawLength);
      }
    }

    @Override
    public void close() {}
  }
}
