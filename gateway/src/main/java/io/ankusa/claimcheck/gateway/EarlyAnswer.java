package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.InlineArrivals;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * A whole claim answered while its store read still arrives: the bytes an inline read has put in
 * its answer ({@link InlineArrivals}) go out to the client at once, the last byte only after the
 * redeem verified the claim; one instance per answer, thread-safe (arrivals come on the request's
 * thread, write completions on Jetty's, the redeem's outcome on either).
 *
 * <p>Invariants: at most one write is outstanding; nothing is sent before {@link #MIN_BYTES} bytes
 * arrived of a read whose answer is exactly the claim's length, and at most {@code size - 1} bytes
 * are sent before the outcome; a read after the first (a failover, the reader's second look)
 * freezes the early bytes where they are. At the outcome: when nothing was sent, the answer is what
 * it is for any redeem (the claim, or the problem of its failure: 404, 502 {@code CORRUPT}, 503);
 * when bytes were sent, the verified claim's prefix must equal them (the same array, or the same
 * bytes) and the rest follows, else — a failure, bytes that differ — the response is aborted: the
 * client sees a broken transfer, never a complete wrong body, and {@code aborted} runs (so the next
 * request of the claim is answered whole, with the reason).
 */
final class EarlyAnswer implements InlineArrivals.Watcher {

  /** A claim of at most this many bytes is answered whole: its failures keep their status. */
  static final int MIN_BYTES = 64 << 10;

  /** Bytes that must have arrived beyond those sent before another early write. */
  private static final int STEP = 32 << 10;

  private final Exchange x;
  private final ClaimRef ref;
  private final String etag;
  private final int size;
  private final Runnable aborted;
  private byte[] watched;
  private int arrived;
  private int sent;
  private boolean begun;
  private boolean writing;
  private boolean frozen;
  private boolean over;
  private boolean done;
  private byte[] verified;
  private Throwable error;

  EarlyAnswer(Exchange x, ClaimRef ref, String etag, int size, Runnable aborted) {
    this.x = x;
    this.ref = ref;
    this.etag = etag;
    this.size = size;
    this.aborted = aborted;
  }

  @Override
  public void arrived(byte[] answer, int filled) {
    synchronized (this) {
      if (frozen) {
        return;
      }
      if (watched == null) {
        if (answer.length != size) {
          frozen = true; // not a read of exactly this claim
          return;
        }
        watched = answer;
      } else if (answer != watched) {
        frozen = true; // another attempt: its bytes are judged at the outcome only
        return;
      }
      arrived = filled;
    }
    pump();
  }

  /** The redeem's outcome: the verified claim, or its failure. */
  void complete(byte[] bytes, Throwable failure) {
    synchronized (this) {
      frozen = true;
      done = true;
      verified = bytes;
      error = failure;
    }
    pump();
  }

  /** Decides the next step under the lock, takes it outside. */
  private void pump() {
    int from;
    int to;
    boolean first;
    synchronized (this) {
      if (writing || over) {
        return;
      }
      if (done) {
        over = true;
        from = -1;
        to = -1;
        first = false;
      } else {
        to = Math.min(arrived, size - 1);
        if (frozen || to < MIN_BYTES || to - sent < STEP) {
          return;
        }
        writing = true;
        from = sent;
        sent = to;
        first = !begun;
        begun = true;
      }
    }
    if (from < 0) {
      finish();
      return;
    }
    if (first && !ClaimAnswers.beginWhole(x, etag, size)) {
      synchronized (this) {
        over = true; // answered otherwise already
      }
      return;
    }
    x.write(
        ByteBuffer.wrap(watched, from, to - from),
        Callback.from(Invocable.InvocationType.NON_BLOCKING, this::written, this::broken));
  }

  private void finish() {
    if (!begun) {
      if (error != null) {
        x.problem(ClaimAnswers.failure(error, ref));
      } else {
        ClaimAnswers.ranged(x, ref, etag, new ByteRange.Whole(), size, ByteBuffer.wrap(verified));
      }
      return;
    }
    if (error == null
        && verified.length == size
        && (verified == watched || Arrays.equals(verified, 0, sent, watched, 0, sent))) {
      x.end(ByteBuffer.wrap(verified, sent, size - sent), size);
      return;
    }
    aborted.run();
    x.abort(
        error != null
            ? error
            : new IllegalStateException("the bytes sent early differ from the verified claim"));
  }

  private void written() {
    synchronized (this) {
      writing = false;
    }
    pump();
  }

  private void broken(Throwable t) {
    synchronized (this) {
      writing = false;
      over = true;
    }
    x.abort(t);
  }
}
