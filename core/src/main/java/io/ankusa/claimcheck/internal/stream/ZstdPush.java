package io.ankusa.claimcheck.internal.stream;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.nio.ByteBuffer;

/**
 * A zstd decoder fed chunk by chunk (zstd-jni's streaming decompression into direct buffers, so no
 * thread waits for input); not thread-safe (one stream's). One frame, first byte to last: bytes
 * after the frame's end are a {@link Decoder.BadStream}, as is a frame inflating past the raw
 * length.
 */
final class ZstdPush implements Decoder {

  private final long rawLength;
  private final ZstdDecompressCtx ctx = new ZstdDecompressCtx();
  private final ByteBuffer out;
  private ByteBuffer in = ByteBuffer.allocateDirect(0);
  private long produced;
  private boolean frameEnded;
  private boolean closed;

  ZstdPush(long rawLength, int pieceBytes) {
    this.rawLength = rawLength;
    this.out = ByteBuffer.allocateDirect(pieceBytes);
  }

  @Override
  public void feed(byte[] chunk) {
    if (in.capacity() < chunk.length) {
      in = ByteBuffer.allocateDirect(chunk.length);
    }
    in.clear();
    in.put(chunk).flip();
  }

  @Override
  public ByteBuffer drain() {
    while (out.position() == 0) {
      if (frameEnded) {
        if (in.hasRemaining()) {
          throw new BadStream(
              "not a valid zstd stream: " + in.remaining() + " bytes after its frame");
        }
        return null;
      }
      int before = in.position();
      if (!step() && in.position() == before) {
        return null; // it needs more input
      }
    }
    return take();
  }

  /** One decompression call; whether it produced output or ended the frame. */
  private boolean step() {
    int before = out.position();
    boolean ended;
    try {
      ended = ctx.decompressDirectByteBufferStream(out, in);
    } catch (RuntimeException e) {
      throw new BadStream("not a valid zstd stream: " + e.getMessage());
    }
    if (ended) {
      frameEnded = true;
    }
    return ended || out.position() > before;
  }

  private ByteBuffer take() {
    out.flip();
    int n = out.remaining();
    if (produced + n > rawLength) {
      throw new BadStream("the claim inflates past the " + rawLength + " bytes its ref records");
    }
    ByteBuffer piece = ByteBuffer.allocate(n);
    piece.put(out).flip();
    out.clear();
    produced += n;
    return piece;
  }

  @Override
  public void finish() {
    if (!frameEnded) {
      throw new BadStream("not a valid zstd stream: it ends inside its frame");
    }
    if (produced != rawLength) {
      throw new BadStream(
          "the claim inflates to " + produced + " bytes, its ref records " + rawLength);
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      ctx.close();
    }
  }
}
