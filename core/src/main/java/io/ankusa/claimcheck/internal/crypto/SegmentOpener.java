package io.ankusa.claimcheck.internal.crypto;

import com.google.crypto.tink.subtle.StreamSegmentDecrypter;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Decrypts the segments of one watched envelope array, in order, as its bytes arrive: on a helper
 * executor while the owner goes on reading, and the rest on the owner when it {@link #finish}es;
 * thread-safe (one owner reports and finishes, helper tasks drain).
 *
 * <p>Invariants: segments are decrypted one at a time under {@code lock}, in index order, each only
 * once all its bytes lie below {@code filled} (a volatile the owner writes after the bytes, which
 * never change afterwards, so a helper that read {@code filled} sees them). At most one helper task
 * is scheduled at a time ({@code scheduled}); one is scheduled only once {@value #BATCH} segments
 * are ready, so a claim costs few hand-offs. After {@link #finish} or {@link #close} no segment is
 * decrypted any more. Any failure marks the opener dead: {@link #finish} then answers null and the
 * caller decrypts from scratch, giving its own answer.
 */
final class SegmentOpener {

  /** Segments ready before a helper task is worth its hand-off. */
  static final int BATCH = 4;

  private final byte[] array;
  private final int headerLength;
  private final long streamLength;
  private final long segments;
  private final int plainLength;
  private final StreamSegmentDecrypter decrypter;
  private final Executor helper;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile int filled;
  // Guarded by lock:
  private byte[] plain;
  private volatile int next; // written under lock, read as a hint
  private int plainAt;
  private volatile boolean dead; // written under lock, read as a hint
  private volatile boolean closed; // written under lock, read as a hint

  /**
   * The opener of {@code array}'s stream after {@code headerLength} envelope-header bytes, with a
   * {@code decrypter} already initialised from its stream header; {@code helper} null decrypts on
   * the reporting thread.
   */
  SegmentOpener(
      byte[] array,
      int headerLength,
      int plainLength,
      StreamSegmentDecrypter decrypter,
      Executor helper) {
    this.array = array;
    this.headerLength = headerLength;
    this.streamLength = array.length - (long) headerLength;
    this.segments = Segmented.segments(streamLength);
    this.plainLength = plainLength;
    this.decrypter = decrypter;
    this.helper = helper;
  }

  /** The owner: bytes {@code [0, filledNow)} of the array arrived. */
  void arrived(int filledNow) {
    if (filledNow <= filled) {
      return;
    }
    filled = filledNow;
    if (helper == null) {
      drainOnce();
    } else if (ready() >= BATCH && scheduled.compareAndSet(false, true)) {
      try {
        helper.execute(this::drain);
      } catch (RejectedExecutionException e) {
        scheduled.set(false); // the owner opens the rest when it finishes
      }
    }
  }

  /**
   * The owner, with the whole array arrived and checked: opens what is left and answers the
   * plaintext, or null when a segment failed; nothing is decrypted after this.
   */
  byte[] finish() {
    filled = array.length;
    lock.lock();
    try {
      if (!closed) {
        open(array.length);
        closed = true;
      }
      return !dead && next == segments ? plain : null;
    } finally {
      lock.unlock();
    }
  }

  /** The owner moved on to another array: nothing more is decrypted for this one. */
  void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
  }

  /** Segments opened so far (tests). */
  int opened() {
    lock.lock();
    try {
      return next;
    } finally {
      lock.unlock();
    }
  }

  /** A helper task: drains until fewer than a batch are ready, then lets the owner schedule. */
  private void drain() {
    do {
      drainOnce();
      scheduled.set(false);
    } while (ready() >= BATCH && scheduled.compareAndSet(false, true));
  }

  private void drainOnce() {
    lock.lock();
    try {
      if (!closed) {
        open(filled);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Segments whose bytes are all in but not yet opened, 0 once nothing more will be (a hint: read
   * without the lock; a dead or closed opener must not be rescheduled for ever).
   */
  private long ready() {
    if (dead || closed) {
      return 0;
    }
    long complete = Math.min(segments, ((long) filled - headerLength) / Segmented.SEGMENT);
    return complete - next;
  }

  /** Under lock: opens every segment lying below {@code upTo}. */
  private void open(int upTo) {
    try {
      while (!dead && next < segments) {
        int start = headerLength + (next == 0 ? Segmented.STREAM_HEADER : next * Segmented.SEGMENT);
        int end = (int) (headerLength + Math.min((next + 1L) * Segmented.SEGMENT, streamLength));
        if (end > upTo) {
          return;
        }
        int n = end - start;
        if (n < Segmented.TAG) {
          throw new GeneralSecurityException("segment " + next + " is shorter than its tag");
        }
        if (plain == null) {
          plain = new byte[plainLength]; // on whoever opens first: often the helper
        }
        decrypter.decryptSegment(
            ByteBuffer.wrap(array, start, n),
            next,
            next == segments - 1,
            ByteBuffer.wrap(plain, plainAt, n - Segmented.TAG));
        plainAt += n - Segmented.TAG;
        next++;
      }
    } catch (GeneralSecurityException | RuntimeException e) {
      dead = true; // Encryption.open decrypts again and says what is wrong
    }
  }
}
