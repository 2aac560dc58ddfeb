package io.ankusa.claimcheck.kafka.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The hand-off between the serde and the pipelined Streams producer: the serde leaves a sink
 * topic's large value in full with a "pending" header, the producer checks it in before the broker
 * send; thread-safe (the binding is per thread).
 *
 * <p>The serde defers only on a thread whose producer said it takes pending values ({@link #bind}):
 * a Kafka Streams stream thread serializes a record and hands it to its one producer on the same
 * thread, so a value left pending there reaches the producer that checks it in. Any other thread
 * gets today's synchronous check-in. The header holds the value's length, so a pending mark that
 * arrives with other bytes (a wrapper around the value) is refused, never checked in whole.
 *
 * <p>A stream thread's first send may come after its first serialize (at least once, the first
 * record processed goes to a sink topic): so a Streams producer also {@link #offer offers} itself
 * under its stream thread's client id, and the thread's main consumer binds the thread to it at
 * every poll ({@link #bindOffered}), before the first record is processed. Two producers offering
 * under one id (two Streams instances in one JVM with one {@code client.id}) cancel the offer:
 * those threads bind at their first send, as without it.
 */
public final class PendingCheckIns {

  /** The header the serde leaves on a record whose value the producer checks in. */
  public static final String HEADER = "claimcheck.pending";

  private static final ThreadLocal<BooleanSupplier> BOUND = new ThreadLocal<>();

  /** Offers by stream thread client id; {@link #AMBIGUOUS} once two producers offered one id. */
  private static final ConcurrentHashMap<String, BooleanSupplier> OFFERS =
      new ConcurrentHashMap<>();

  private static final BooleanSupplier AMBIGUOUS = () -> false;

  private static final String PRODUCER_SUFFIX = "-producer";
  private static final String CONSUMER_SUFFIX = "-consumer";

  private PendingCheckIns() {}

  /** Declares that the calling thread's sends go to a producer taking pending values while open. */
  public static void bind(BooleanSupplier open) {
    if (BOUND.get() != open) {
      BOUND.set(open);
    }
  }

  /**
   * Offers the producer with {@code client.id} {@code producerClientId} ({@code <thread>-producer},
   * as Kafka Streams names a stream thread's producer), open while {@code open} says so, to the
   * main consumer of the same stream thread; ignored for any other client id.
   */
  public static void offer(Object producerClientId, BooleanSupplier open) {
    String thread = threadOf(producerClientId, PRODUCER_SUFFIX);
    if (thread != null) {
      OFFERS.merge(thread, open, (before, now) -> before == now ? now : AMBIGUOUS);
    }
  }

  /** Withdraws what {@link #offer} offered (the producer closed). */
  public static void withdraw(Object producerClientId, BooleanSupplier open) {
    String thread = threadOf(producerClientId, PRODUCER_SUFFIX);
    if (thread != null) {
      OFFERS.remove(thread, open);
    }
  }

  /**
   * Binds the calling thread to the producer offered for the stream thread whose main consumer has
   * {@code client.id} {@code consumerClientId} ({@code <thread>-consumer}), if one was; returns
   * whether one was (a consumer of no stream thread finds none).
   */
  public static boolean bindOffered(Object consumerClientId) {
    String thread = threadOf(consumerClientId, CONSUMER_SUFFIX);
    BooleanSupplier open = thread == null ? null : OFFERS.get(thread);
    if (open == null || open == AMBIGUOUS) {
      return false;
    }
    bind(open);
    return true;
  }

  private static String threadOf(Object clientId, String suffix) {
    if (!(clientId instanceof String id)
        || !id.endsWith(suffix)
        || id.length() == suffix.length()) {
      return null;
    }
    return id.substring(0, id.length() - suffix.length());
  }

  /** Whether the calling thread's producer takes pending values now. */
  public static boolean boundHere() {
    BooleanSupplier open = BOUND.get();
    return open != null && open.getAsBoolean();
  }

  /** Marks {@code value} (in full, its marker removed) as pending check-in. */
  public static void mark(Headers headers, byte[] value) {
    Markers.unmark(headers, false);
    headers.remove(HEADER);
    headers.add(HEADER, ByteBuffer.allocate(4).putInt(value.length).array());
  }

  /**
   * Whether {@code headers} mark {@code value} as pending, removing the mark; throws {@link
   * IllegalStateException} when the mark names another length than {@code value}'s.
   */
  public static boolean take(Headers headers, byte[] value) {
    Header h = headers.lastHeader(HEADER);
    if (h == null) {
      return false;
    }
    headers.remove(HEADER);
    byte[] b = h.value();
    if (value == null
        || b == null
        || b.length != 4
        || ByteBuffer.wrap(b).getInt() != value.length) {
      throw new IllegalStateException(
          "a record marked "
              + HEADER
              + " carries other bytes than the value the serde left pending");
    }
    return true;
  }
}
