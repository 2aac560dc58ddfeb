package io.ankusa.claimcheck.internal.redeem;

import io.ankusa.claimcheck.store.InlineArrivals;
import java.util.function.ToIntFunction;
import java.util.zip.CRC32C;

/**
 * The CRC32C of an inline read's answer, summed while the answer arrives ({@link InlineArrivals}),
 * so that the check after the last byte covers only what came last; one per redeem, thread-safe
 * (arrivals come on the reading thread, the check on whichever thread completes the read).
 *
 * <p>Invariants: the running sum covers bytes {@code [0, summed)} of one array, {@code watched},
 * whose length is the claim's stored length; an arrival in another array (a new attempt, a grown
 * answer) starts the sum over on that one. Bytes below an arrival's {@code filled} never change
 * afterwards (the contract of {@link InlineArrivals}), so when the array that is finally checked is
 * {@code watched}, its CRC32C is the running sum continued over {@code [summed, length)}; any other
 * array is summed whole, as without this class. Each arrival is first passed on to the watcher that
 * was watching before (the gateway's early answer, an envelope opened as it arrives), so the bytes
 * go on their way before they are summed.
 */
final class ArrivingChecksum implements InlineArrivals.Watcher {

  /** Claims shorter than this are summed whole after the read: the tail is short anyway. */
  static final int MIN_BYTES = 64 << 10;

  private final int length;
  private InlineArrivals.Watcher next;
  private CRC32C crc;
  private byte[] watched;
  private int summed;

  /** Sums arrivals of an answer of {@code length} bytes, passing them on to {@code next}. */
  ArrivingChecksum(int length, InlineArrivals.Watcher next) {
    this.length = length;
    this.next = next;
  }

  @Override
  public void arrived(byte[] answer, int filled) {
    InlineArrivals.Watcher n;
    synchronized (this) {
      n = next;
    }
    if (n != null) {
      InlineArrivals.Watcher still = InlineArrivals.report(n, answer, filled);
      if (still == null) {
        synchronized (this) {
          next = null; // it failed: it is not told again, as unwrapped
        }
      }
    }
    synchronized (this) {
      if (answer != watched) {
        if (answer.length != length) {
          return;
        }
        watched = answer;
        summed = 0;
        if (crc == null) {
          crc = new CRC32C();
        } else {
          crc.reset();
        }
      }
      if (filled > summed && filled <= length) {
        crc.update(answer, summed, filled - summed);
        summed = filled;
      }
    }
  }

  /**
   * The CRC32C of {@code bytes}: the running sum continued to the end when {@code bytes} is the
   * watched array (once: the sum is then spent), else {@code whole} of it.
   */
  synchronized int crc32c(byte[] bytes, ToIntFunction<byte[]> whole) {
    if (bytes != watched || bytes.length != length) {
      return whole.applyAsInt(bytes);
    }
    crc.update(bytes, summed, length - summed);
    int sum = (int) crc.getValue();
    watched = null;
    return sum;
  }
}
