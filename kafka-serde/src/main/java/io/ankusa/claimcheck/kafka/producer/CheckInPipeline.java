package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.internal.SerdeMetrics;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands accepted records to the inner producer in per-lane send order, each as soon as its value is
 * final and every earlier record of its lane went; thread-safe.
 *
 * <p>Invariants, all under {@code lock}: every accepted record is in {@code outstanding} (by
 * sequence number) until it was handed off or failed; a record with a lane is in that lane's queue
 * until a dispatcher takes it, and queues are FIFO in sequence order; at most one thread dispatches
 * a lane at a time ({@code dispatching}), taking only decided records from the head, so a lane's
 * records reach the inner producer in send order; a record is {@code settled} exactly once, by
 * whoever takes it. With {@code failLane}, a failed head takes every record queued behind it down
 * with it. Inner sends and callbacks run outside the lock.
 *
 * <p>Whatever is thrown, a record taken for hand-off is completed once (callback, then future), its
 * bytes are released and it leaves {@code outstanding}: nothing thrown by the inner producer or a
 * callback escapes a dispatcher. An {@link Error} thrown by a callback is noted for {@code
 * flush}/{@code close} ({@link ProducerErrors}) and the lane goes on; one thrown by the inner
 * producer's {@code send} fails its record and the producer for good, since the inner producer may
 * or may not hold the record now: every record still here fails, none goes after it.
 */
final class CheckInPipeline {

  private static final Logger LOG = LoggerFactory.getLogger(CheckInPipeline.class);

  private final Producer<byte[], byte[]> inner;
  private final io.ankusa.claimcheck.time.Ticker ticker;
  private final WriteBuffer buffer;
  private final boolean failLane;
  private final SerdeMetrics counts;
  private final ProducerErrors errors;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<Object, ArrayDeque<PendingRecord>> lanes = new HashMap<>();
  private final java.util.Set<Object> dispatching = new java.util.HashSet<>();
  private final TreeMap<Long, PendingRecord> outstanding = new TreeMap<>();
  private final java.util.Set<Long> failedTransactions = new java.util.HashSet<>();
  private long nextSeq;

  CheckInPipeline(
      Producer<byte[], byte[]> inner,
      io.ankusa.claimcheck.time.Ticker ticker,
      WriteBuffer buffer,
      boolean failLane,
      SerdeMetrics counts,
      ProducerErrors errors) {
    this.inner = inner;
    this.errors = errors;
    this.ticker = ticker;
    this.buffer = buffer;
    this.failLane = failLane;
    this.counts = counts;
  }

  /** Whether a record of {@code lane} accepted now would wait behind an earlier one. */
  boolean wouldQueue(Object lane) {
    if (lane == null) {
      return false;
    }
    lock.lock();
    try {
      ArrayDeque<PendingRecord> q = lanes.get(lane);
      return (q != null && !q.isEmpty()) || dispatching.contains(lane);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Accepts the record {@code make} builds for the next sequence number; nothing is accepted when
   * this throws. Follow with {@link #sendIfReady}.
   */
  PendingRecord add(LongFunction<PendingRecord> make) {
    lock.lock();
    try {
      PendingRecord r = make.apply(nextSeq);
      ArrayDeque<PendingRecord> q =
          r.lane == null ? null : lanes.computeIfAbsent(r.lane, l -> new ArrayDeque<>());
      outstanding.put(r.seq, r);
      nextSeq++;
      if (q != null) {
        q.addLast(r);
      }
      return r;
    } finally {
      lock.unlock();
    }
  }

  /** Sends the just accepted {@code r} (and what waited for it) if it may go now. */
  void sendIfReady(PendingRecord r) {
    if (r.decided()) {
      dispatch(r);
    }
  }

  /** Records that {@code r}'s value is final as {@code ready}'s; sends what may go now. */
  void decided(
      PendingRecord r,
      org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> ready,
      RuntimeException failure) {
    lock.lock();
    try {
      if (r.settled || r.decided()) {
        return;
      }
      r.ready = ready;
      r.failure = failure;
    } finally {
      lock.unlock();
    }
    dispatch(r);
  }

  private void dispatch(PendingRecord r) {
    if (r.lane != null) {
      drain(r.lane);
      return;
    }
    lock.lock();
    try {
      if (r.settled) {
        return;
      }
      r.settled = true;
    } finally {
      lock.unlock();
    }
    finish(List.of(r));
  }

  private void drain(Object lane) {
    lock.lock();
    try {
      if (!dispatching.add(lane)) {
        return; // its dispatcher will find what just became ready
      }
    } finally {
      lock.unlock();
    }
    List<PendingRecord> batch = new ArrayList<>();
    while (true) {
      lock.lock();
      try {
        ArrayDeque<PendingRecord> q = lanes.get(lane);
        while (q != null && !q.isEmpty() && q.peekFirst().decided()) {
          PendingRecord head = q.pollFirst();
          head.settled = true;
          batch.add(head);
          if (head.failure != null && failLane) {
            for (PendingRecord later : q) {
              if (later.failure == null) {
                later.failure =
                    new KafkaException(
                        "not sent: an earlier record of the same "
                            + "partition failed and idempotence is on",
                        head.failure);
              }
              later.settled = true;
              batch.add(later);
            }
            q.clear();
          }
        }
        if (batch.isEmpty()) {
          if (q != null && q.isEmpty()) {
            lanes.remove(lane);
          }
          dispatching.remove(lane);
          changed.signalAll();
          return;
        }
      } finally {
        lock.unlock();
      }
      finish(batch);
      batch.clear();
    }
  }

  /**
   * Hands each of {@code batch} to the inner producer or fails it, in order; then forgets them.
   * Throws nothing the inner producer or a callback throws.
   */
  private void finish(List<PendingRecord> batch) {
    boolean failsProducer = false;
    for (PendingRecord r : batch) {
      buffer.release(r.reserved);
      failsProducer |= settle(r);
    }
    lock.lock();
    try {
      for (PendingRecord r : batch) {
        outstanding.remove(r.seq);
        if (r.failure != null) {
          failedTransactions.add(r.transaction);
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (failsProducer) {
      failAll(r -> true, errors.failure());
    }
  }

  /** Hands {@code r} on or fails it; returns whether the inner producer threw an Error. */
  private boolean settle(PendingRecord r) {
    if (r.failure == null && errors.failed()) {
      r.failure = errors.failure(); // taken before the producer failed: must not go after it
    }
    boolean fatal = false;
    if (r.failure == null) {
      try {
        inner.send(r.ready, (md, e) -> complete(r, md, e));
        return false;
      } catch (RuntimeException e) { // closed, fenced, interrupted: the record failed
        complete(r, null, e);
        return false;
      } catch (Error e) {
        errors.fatal(e);
        r.failure = new KafkaException("the inner producer's send threw " + e, e);
        errors.note(
            r.seq,
            e,
            "the inner producer's send threw an Error: its record and every "
                + "record still waiting failed, and so will every later send");
        fatal = true;
      }
    } else if (r.failure instanceof ClaimCheckException c) {
      counts.failed(c.reason());
    }
    complete(r, null, r.failure);
    return fatal;
  }

  /**
   * Completes {@code r} once: its callback (whatever that throws), then its future. Runs on the
   * inner producer's I/O thread too, so it never throws.
   */
  private void complete(
      PendingRecord r, org.apache.kafka.clients.producer.RecordMetadata md, Exception e) {
    if (!r.completed.compareAndSet(false, true)) {
      return; // a send that threw an Error may still call back: the record was settled already
    }
    try {
      if (r.callback != null) {
        r.callback.onCompletion(e == null ? md : (md != null ? md : r.failedMetadata()), e);
      }
    } catch (RuntimeException thrown) {
      LOG.error("A send callback threw; ignored as the Kafka producer does", thrown);
    } catch (Error thrown) {
      errors.note(r.seq, thrown, "a send callback threw an Error (its record's outcome stands)");
    } finally {
      if (e == null) {
        r.future.complete(md);
      } else {
        r.future.completeExceptionally(e);
      }
    }
  }

  /** The sequence number of the latest record accepted so far (-1 when none). */
  long mark() {
    lock.lock();
    try {
      return nextSeq - 1;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until no record matching {@code which} is outstanding, or until {@code timeoutNanos}
   * passed (Long.MAX_VALUE: no limit); returns whether none is.
   */
  boolean await(Predicate<PendingRecord> which, long timeoutNanos) {
    long end = ticker.read() + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
    lock.lock();
    try {
      while (outstanding.values().stream().anyMatch(which)) {
        long left = end - ticker.read();
        if (left <= 0) {
          return false;
        }
        changed.await(left, TimeUnit.NANOSECONDS);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptException(e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Fails every undecided record matching {@code which} with {@code why}, then sends what may go.
   */
  void failAll(Predicate<PendingRecord> which, RuntimeException why) {
    List<PendingRecord> touched = new ArrayList<>();
    lock.lock();
    try {
      for (PendingRecord r : outstanding.values()) {
        if (which.test(r) && !r.settled) {
          r.failure = why;
          r.ready = null;
          touched.add(r);
        }
      }
    } finally {
      lock.unlock();
    }
    touched.forEach(this::dispatch);
  }

  /** Whether a record of {@code transaction} failed here (and so must not be committed). */
  boolean failedIn(long transaction) {
    lock.lock();
    try {
      return failedTransactions.contains(transaction);
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the failure state of {@code transaction} (once it was committed or aborted). */
  void forget(long transaction) {
    lock.lock();
    try {
      failedTransactions.remove(transaction);
    } finally {
      lock.unlock();
    }
  }

  /** How many accepted records have not yet been handed off or failed. */
  int outstanding() {
    lock.lock();
    try {
      return outstanding.size();
    } finally {
      lock.unlock();
    }
  }
}
