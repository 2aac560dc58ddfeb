package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.internal.ClaimEmit;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * Checks the values of accepted records in on a bounded pool of its own, at most {@code
 * maxInflight} uploads at once, each a blocking {@link ClaimCheck#checkIn} (or {@link
 * ClaimCheck#checkInAll} for several values waiting together, when packing is on); thread-safe.
 *
 * <p>Invariants: every submitted record is taken from {@code waiting} by exactly one task, and its
 * outcome goes to the pipeline exactly once (a record already settled — failed by an abort, a close
 * or an earlier failure of its partition — is skipped without an upload); {@code inflight} counts
 * the uploads under way. The pool's threads are daemons; {@link #shutdown} stops them.
 *
 * <p>Whatever a check-in throws, {@link Error}s included, its records are decided: an Error fails
 * them (a {@link KafkaException} whose cause it is, noted in {@link ProducerErrors} for {@code
 * flush}/{@code close}) as any failed check-in does, and is then rethrown on the upload thread,
 * which the pool replaces. The producer goes on: nothing of its state was touched when the Error
 * came, and the record never reached the inner producer. A record whose task cannot be started (no
 * thread: an {@code OutOfMemoryError}; a pool shut down by close) fails the same way.
 */
final class Uploader {

  private final ClaimCheck claimCheck;
  private final CheckInPipeline pipeline;
  private final ProducerSettings settings;
  private final ProducerMetrics metrics;
  private final ProducerErrors errors;
  private final Ticker ticker;
  private final ConcurrentLinkedQueue<PendingRecord> waiting = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inflight = new AtomicInteger();
  private final ExecutorService pool;

  Uploader(
      ClaimCheck claimCheck,
      CheckInPipeline pipeline,
      ProducerSettings settings,
      ProducerMetrics metrics,
      ProducerErrors errors,
      Ticker ticker,
      String clientId) {
    this.errors = errors;
    this.claimCheck = claimCheck;
    this.pipeline = pipeline;
    this.settings = settings;
    this.metrics = metrics;
    this.ticker = ticker;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            settings.maxInflight(),
            settings.maxInflight(),
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t =
                  new Thread(
                      r, "claimcheck-producer-" + clientId + "-upload-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    ((ThreadPoolExecutor) pool).allowCoreThreadTimeOut(true);
  }

  /** Queues {@code r}'s value for check-in; fails it when no task can be started for it. */
  void submit(PendingRecord r) {
    waiting.add(r);
    try {
      pool.execute(this::uploadWaiting);
    } catch (RuntimeException | Error e) { // rejected (closed), or no thread could be started
      if (waiting.remove(r)) {
        if (e instanceof Error) {
          errors.note(r.seq, e, "no upload thread could be started");
        }
        pipeline.decided(r, null, new KafkaException("check-in not started: " + e, e));
      }
    }
  }

  /** Uploads in flight now. */
  int inflight() {
    return inflight.get();
  }

  /** Takes what is waiting (up to one pack) and checks it in; nothing when another task took it. */
  private void uploadWaiting() {
    List<PendingRecord> pack = new ArrayList<>();
    long bytes = 0;
    PendingRecord r;
    while (pack.size() < settings.packMaxClaims()
        && (r = waiting.peek()) != null
        && (pack.isEmpty() || bytes + r.valueBytes() <= settings.packMaxBytes())) {
      if (!waiting.remove(r)) {
        continue; // another task took it
      }
      if (!r.settled) {
        pack.add(r);
        bytes += r.valueBytes();
      }
    }
    if (!pack.isEmpty()) {
      upload(pack);
    }
  }

  private void upload(List<PendingRecord> pack) {
    inflight.incrementAndGet();
    long start = ticker.read();
    List<ClaimRef> refs = null;
    RuntimeException failure = null;
    Error error = null;
    try {
      if (pack.size() == 1) {
        refs = List.of(claimCheck.checkIn(pack.get(0).staged.value()));
      } else {
        List<byte[]> values = new ArrayList<>(pack.size());
        pack.forEach(p -> values.add(p.staged.value()));
        refs = claimCheck.checkInAll(values);
      }
    } catch (ClaimCheckFailure f) {
      failure = ClaimCheckException.of(f);
    } catch (RuntimeException e) {
      failure = new KafkaException("check-in failed: " + e, e);
    } catch (Error e) {
      error = e;
      failure = new KafkaException("check-in failed with " + e, e);
    } finally {
      inflight.decrementAndGet();
    }
    metrics.checkedIn(pack.size(), ticker.read() - start, failure == null);
    for (int i = 0; i < pack.size(); i++) {
      PendingRecord p = pack.get(i);
      ProducerRecord<byte[], byte[]> ready = null;
      RuntimeException why = failure;
      if (why == null) {
        try {
          ready = withRef(p.staged, refs.get(i));
        } catch (RuntimeException | Error e) {
          error = e instanceof Error err ? err : error;
          why = new KafkaException("check-in failed: " + e, e);
        }
      }
      if (why != null && why.getCause() instanceof Error err) { // noted before flush sees p go
        errors.note(p.seq, err, "a check-in threw an Error: its record failed");
      }
      pipeline.decided(p, ready, why);
    }
    if (error != null) {
      throw error; // for the thread's uncaught-exception handler; the pool starts another thread
    }
  }

  /**
   * The staged record with its value replaced by {@code ref}, marked as the serializer marks it.
   */
  private static ProducerRecord<byte[], byte[]> withRef(
      ProducerRecord<byte[], byte[]> staged, ClaimRef ref) {
    byte[] value = ClaimEmit.ref(staged.headers(), false, ref);
    return new ProducerRecord<>(
        staged.topic(),
        staged.partition(),
        staged.timestamp(),
        staged.key(),
        value,
        staged.headers());
  }

  /** Stops the pool: waits up to {@code timeoutNanos} for running uploads, then interrupts them. */
  void shutdown(long timeoutNanos) {
    pool.shutdown();
    try {
      if (!pool.awaitTermination(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS)) {
        pool.shutdownNow();
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
