package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ref.ClaimRef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A Streams app's producer interceptor that, once {@link #arm armed}, holds the first foreign-key
 * join subscription-response record whose value carries a ref in {@code onSend} until released;
 * thread-safe, its state static (the producer makes it from its class name), so one test at a time.
 *
 * <p>{@code onSend} runs after Streams serialized the record (so the ref's claim is checked in and
 * its pack written) and before the record enters the producer's buffer: the held record is a record
 * in flight, as a loaded machine makes one by descheduling the stream thread or the sender.
 */
public final class HoldingResponseInterceptor implements ProducerInterceptor<byte[], byte[]> {

  private static final AtomicReference<Hold> ARMED = new AtomicReference<>();

  /** One hold: the ref of the record held, once held, and its release. */
  static final class Hold {
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile ClaimRef ref;

    /** The ref of the held record, waiting up to {@code timeout}; null if none was held. */
    ClaimRef awaitHeld(Duration timeout) throws InterruptedException {
      held.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return ref;
    }

    /** Lets the held record (if any) go on; disarms if nothing was held yet. Idempotent. */
    void release() {
      ARMED.compareAndSet(this, null);
      released.countDown();
    }
  }

  /** Arms one hold: the next response record with a ref is held until the hold is released. */
  static Hold arm() {
    Hold h = new Hold();
    ARMED.set(h);
    return h;
  }

  @Override
  public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
    Hold h = ARMED.get();
    if (h == null || !record.topic().contains("SUBSCRIPTION-RESPONSE")) {
      return record;
    }
    List<ClaimRef> refs = StreamsUnderCollectionIT.refsIn(record.value());
    if (refs.isEmpty() || !ARMED.compareAndSet(h, null)) {
      return record;
    }
    h.ref = refs.get(0);
    h.held.countDown();
    try {
      h.released.await(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return record;
  }

  @Override
  public void onAcknowledgement(RecordMetadata metadata, Exception exception) {}

  @Override
  public void close() {}

  @Override
  public void configure(Map<String, ?> configs) {}
}
