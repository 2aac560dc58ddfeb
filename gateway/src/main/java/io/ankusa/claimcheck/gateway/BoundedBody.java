package io.ankusa.claimcheck.gateway;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.io.Content;

/**
 * Reads a request body whole, without blocking a thread while it waits for bytes, and refuses it as
 * soon as it passes a byte limit (a chunked upload that never ends costs at most the limit); one
 * instance per body, driven by Jetty's demand callbacks, so not shared between threads.
 */
final class BoundedBody implements Runnable {

  /** The body passed its limit. */
  static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("the body passed its limit", null, false, false);
    }
  }

  private final Content.Source source;
  private final int max;
  private final ByteArrayOutputStream bytes;
  private final CompletableFuture<byte[]> done = new CompletableFuture<>();

  private BoundedBody(Content.Source source, int max, long declared) {
    this.source = source;
    this.max = max;
    this.bytes = new ByteArrayOutputStream((int) Math.min(Math.max(declared, 1024), max));
  }

  /** The body's bytes, or a failure: {@link TooLarge}, or the reason reading failed. */
  static CompletableFuture<byte[]> read(Content.Source source, int max, long declared) {
    BoundedBody b = new BoundedBody(source, max, declared);
    b.run();
    return b.done;
  }

  @Override
  public void run() {
    while (true) {
      Content.Chunk chunk = source.read();
      if (chunk == null) {
        source.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        done.completeExceptionally(chunk.getFailure());
        return;
      }
      ByteBuffer b = chunk.getByteBuffer();
      if ((long) bytes.size() + b.remaining() > max) {
        chunk.release();
        source.fail(new TooLarge());
        done.completeExceptionally(new TooLarge());
        return;
      }
      byte[] part = new byte[b.remaining()];
      b.get(part);
      bytes.write(part, 0, part.length);
      boolean last = chunk.isLast();
      chunk.release();
      if (last) {
        done.complete(bytes.toByteArray());
        return;
      }
    }
  }
}
