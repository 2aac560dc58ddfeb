package io.ankusa.claimcheck.kafka.internal;

import java.nio.ByteBuffer;
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
 */
public final class PendingCheckIns {

  /** The header the serde leaves on a record whose value the producer checks in. */
  public static final String HEADER = "claimcheck.pending";

  private static final ThreadLocal<BooleanSupplier> BOUND = new ThreadLocal<>();

  private PendingCheckIns() {}

  /** Declares that the calling thread's sends go to a producer taking pending values while open. */
  public static void bind(BooleanSupplier open) {
    if (BOUND.get() != open) {
      BOUND.set(open);
    }
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
