package io.ankusa.claimcheck;

/**
 * One request counted by the process's request gate ({@code claimcheck.max.concurrent.reads}) until
 * {@link #close closed}; thread-safe: any thread may close it, and closing is idempotent.
 *
 * <p>Unlike the permit {@link ClaimCheck#redeemBlocking} takes, it belongs to no thread, so a
 * server that answers a request on another thread than the one that admitted it (an asynchronous
 * HTTP server) gives it back from there. A permit never closed stays counted until the process
 * ends: close it in a {@code finally} or a completion callback.
 */
public interface RequestPermit extends AutoCloseable {

  /** Gives the permit back; later calls do nothing. */
  @Override
  void close();
}
