package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.nio.ByteBuffer;
import org.eclipse.jetty.util.Callback;

/**
 * A whole claim served as it streams from the library ({@link ClaimCheck#redeemStream}), a piece at
 * a time, without holding a thread while it waits; one instance per answer, driven by the stream's
 * and Jetty's callbacks (one step at a time, so not shared).
 *
 * <p>Invariants: a failure before the first piece is an ordinary problem answer (404, 503, 502...);
 * the status and headers (its length from the ref) go out with the first piece; one piece is always
 * held back until the stream says what follows, so the last bytes are sent only once the claim's
 * end verified — a claim whose end does not verify (or whose store fails mid-stream) is aborted:
 * the client sees a broken transfer, never the whole body.
 */
final class StreamedAnswer {

  private final Exchange x;
  private final ClaimRef ref;
  private final String etag;
  private final ClaimCheck.ClaimStream stream;
  private final long size;
  private boolean begun;

  private StreamedAnswer(
      Exchange x, ClaimRef ref, String etag, ClaimCheck.ClaimStream stream, long size) {
    this.x = x;
    this.ref = ref;
    this.etag = etag;
    this.stream = stream;
    this.size = size;
  }

  /** Serves {@code stream}, the claim of {@code ref}, whose raw length {@code size} is known. */
  static void serve(
      Exchange x, ClaimRef ref, String etag, ClaimCheck.ClaimStream stream, long size) {
    new StreamedAnswer(x, ref, etag, stream, size).next(null);
  }

  /** Asks for the piece after {@code held} (not sent yet). */
  private void next(ByteBuffer held) {
    stream
        .nextChunk()
        .whenComplete(
            (piece, error) -> {
              try {
                if (error != null) {
                  failed(error);
                } else if (piece == null) {
                  finish(held);
                } else {
                  send(held, piece);
                }
              } catch (RuntimeException e) {
                failed(e);
              }
            });
  }

  private void send(ByteBuffer held, ByteBuffer piece) {
    if (!begun && !begin()) {
      stream.close();
      return;
    }
    if (held == null) {
      next(piece);
      return;
    }
    x.write(
        held,
        Callback.from(
            () -> next(piece),
            t -> {
              stream.close();
              x.abort(t);
            }));
  }

  private void finish(ByteBuffer held) {
    stream.close();
    if (!begun && !begin()) {
      return;
    }
    x.end(held, size);
  }

  private void failed(Throwable error) {
    stream.close();
    if (!begun) {
      x.problem(ClaimAnswers.failure(error, ref));
    } else {
      x.abort(error);
    }
  }

  private boolean begin() {
    begun = true;
    return ClaimAnswers.beginWhole(x, etag, size);
  }
}
