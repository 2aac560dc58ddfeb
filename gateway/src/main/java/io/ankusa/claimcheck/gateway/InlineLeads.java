package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.time.Ticker;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Lets a bounded number of requests lead their store fetch on the server's own thread ({@link
 * InlineCalls}), the rest waiting asynchronously as before; thread-safe.
 *
 * <p>A request that the reader lets lead a flight (the first of its claim, within the reader's AIMD
 * limit: coalescing, the limit, the queue and the deadline are the reader's as for any fetch) then
 * makes the store call itself through the store's synchronous client, and its answer is written
 * from the same thread: no hand-off to the SDK's event loop, to its completion executor and back,
 * which on a small claim cost more than the transfer (one client GETting 256 KiB claims ran at 0.3x
 * a raw SDK loop). Such a request holds its thread until the call ends, bounded by its deadline; so
 * at most {@code max} do at once (a store that hangs costs at most {@code max} threads for a
 * deadline, never one per request), and only for claims of at most {@link #MAX_BYTES}, which one
 * store read answers.
 */
final class InlineLeads {

  /** The largest claim whose fetch is led inline: one store read (a stream's one chunk). */
  static final long MAX_BYTES = 1 << 20;

  private final int max;
  private final Ticker ticker;
  private final AtomicInteger leading = new AtomicInteger();

  InlineLeads(int max, Ticker ticker) {
    this.max = max;
    this.ticker = ticker;
  }

  /**
   * Runs {@code call} (which starts a redeem of {@code bytes} bytes and returns its future or
   * stream) allowing inline store calls until {@code deadlineNanos}, when a lead is free and the
   * claim small enough; else runs it as is.
   */
  <T> T run(long bytes, long deadlineNanos, Supplier<T> call) {
    if (bytes < 0 || bytes > MAX_BYTES || !take()) {
      return call.get();
    }
    try (InlineCalls.Scope s = InlineCalls.allowUntil(ticker, deadlineNanos)) {
      return call.get();
    } finally {
      leading.decrementAndGet();
    }
  }

  private boolean take() {
    while (true) {
      int n = leading.get();
      if (n >= max) {
        return false;
      }
      if (leading.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }
}
