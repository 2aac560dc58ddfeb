package io.ankusa.claimcheck.kafka.internal;

/**
 * Per-thread count of "a poll just ended" signals from {@code ClaimCheckConsumerInterceptor} and
 * {@code PrefetchingConsumer}; thread-safe (each thread sees only its own count).
 *
 * <p>A consumer deserializes a poll's records and then calls its interceptors' {@code onConsume} on
 * the thread that called {@code poll}, and Kafka Streams deserializes on the stream thread that
 * polled: so a signal on a thread ends the poll window of every deserializer that thread drives,
 * with no registry to keep or leak.
 */
public final class PollBoundaries {

  private static final ThreadLocal<long[]> EPOCH = ThreadLocal.withInitial(() -> new long[1]);

  private PollBoundaries() {}

  /** Records that the calling thread's poll ended. */
  public static void signal() {
    EPOCH.get()[0]++;
  }

  /** How many polls the calling thread has signalled (0: it runs no interceptor). */
  public static long epoch() {
    return EPOCH.get()[0];
  }
}
