package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.errors.InterruptException;

/**
 * The byte budget of values a {@link ClaimCheckProducer} holds before they reach the inner producer
 * ({@code claimcheck.write.buffer.bytes}); thread-safe.
 *
 * <p>Invariants: {@code used} is the sum of every reservation not yet released, guarded by {@code
 * lock}; {@code used <= capacity} except for one reservation larger than the whole capacity, which
 * is admitted only into an empty buffer (so it cannot wait forever). Every release signals the
 * waiters. Deadlines are read on the injected ticker.
 */
final class WriteBuffer {

  private final long capacity;
  private final Ticker ticker;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition freed = lock.newCondition();
  private long used;

  WriteBuffer(long capacity, Ticker ticker) {
    this.capacity = capacity;
    this.ticker = ticker;
  }

  /**
   * Reserves {@code bytes}, waiting until {@code deadlineNanos} (on the ticker) for room; returns
   * false when the deadline passed first. Throws Kafka's {@link InterruptException} (flag restored)
   * when interrupted.
   */
  boolean reserve(long bytes, long deadlineNanos) {
    lock.lock();
    try {
      while (!fits(bytes)) {
        long left = deadlineNanos - ticker.read();
        if (left <= 0) {
          return false;
        }
        try {
          freed.await(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptException(e);
        }
      }
      used += bytes;
      return true;
    } finally {
      lock.unlock();
    }
  }

  private boolean fits(long bytes) {
    return used + bytes <= capacity || used == 0;
  }

  /** Returns {@code bytes} reserved earlier. */
  void release(long bytes) {
    if (bytes == 0) {
      return;
    }
    lock.lock();
    try {
      used -= bytes;
      freed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes reserved now. */
  long used() {
    lock.lock();
    try {
      return used;
    } finally {
      lock.unlock();
    }
  }
}
