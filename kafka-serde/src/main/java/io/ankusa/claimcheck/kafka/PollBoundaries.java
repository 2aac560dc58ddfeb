package io.ankusa.claimcheck.kafka;

/**
 * Per-thread count of "a poll just ended" signals from {@link ClaimCheckConsumerInterceptor} and
 * {@link PrefetchingConsumer}; thread-safe (each thread sees only its own count).
 *
 * <p>A consumer deserializes a poll's records and then calls its interceptors' {@code onConsume} on
 * the thread that called {@code poll}, and Kafka Streams deserializes on the stream thread that
 * polled: so a signal on a thread ends the poll window of every deserializer that thread drives,
 * with no registry to keep or leak.
 */
final class PollBoundaries {

  private static final ThreadLocal<long[]> EPOCH = ThreadLocal.withInitial(() -> new long[1]);

  private PollBoundaries() {}

  /** Records that the calling thread's poll ended. */
  static void signal() {
    EPOCH.get()[0]++;
  }

  /** How many polls the calling thread has signalled (0: it runs no interceptor). */
  static long epoch() {
    return EPOCH.get()[0];
  }
}
