package io.ankusa.claimcheck.store;

import io.ankusa.claimcheck.time.Ticker;
import java.util.Objects;

/**
 * Whether the calling thread lets a store perform a call on that thread, blocking it until the call
 * ends, and until when; a thread-confined setting, so thread-safe by confinement.
 *
 * <p>The store SPI is asynchronous: a {@link ClaimStore} call returns a future and must not block
 * its caller. A thread that will wait for the answer anyway (a deserializer redeeming a claim, a
 * serializer checking one in) gains nothing from that: the request goes to the HTTP client's event
 * loop, the answer to a completion thread, and the waiting thread is woken last — hand-offs that
 * cost more than the work on a small claim. Such a thread {@link #allowUntil allows inline calls}
 * for the span of its wait; a store that can serve a call on the calling thread (the S3 store, with
 * a synchronous HTTP client) may then do so, bounded by {@link #remainingNanos()} as well as by the
 * call's own timeout, and return an already completed future. A store that cannot simply ignores
 * this class; nothing else about the SPI changes (the same outcomes, the same failures).
 *
 * <p>Code that calls a store on a thread it does not own the wait of (another caller's queued read,
 * a callback completing someone else's future) runs under {@link #suspend()}, so one caller's
 * thread never blocks for another's request.
 */
public final class InlineCalls {

  private static final ThreadLocal<Allowance> CURRENT = new ThreadLocal<>();

  private InlineCalls() {}

  /** The span of an allowance or a suspension; closing it restores what was set before. */
  public interface Scope extends AutoCloseable {
    /** Restores the setting of the calling thread from before this scope; never throws. */
    @Override
    void close();
  }

  /**
   * Lets store calls on the calling thread run inline until {@code deadlineNanos} on {@code
   * ticker}, until the returned scope is closed (on the same thread).
   */
  public static Scope allowUntil(Ticker ticker, long deadlineNanos) {
    return set(new Allowance(Objects.requireNonNull(ticker, "ticker"), deadlineNanos));
  }

  /**
   * Lets store calls on the calling thread run inline, bounded by their own timeouts only, until
   * the returned scope is closed.
   */
  public static Scope allow() {
    return set(Allowance.UNBOUNDED);
  }

  /** Lets no store call on the calling thread run inline until the returned scope is closed. */
  public static Scope suspend() {
    return CURRENT.get() == null ? NOTHING : set(null);
  }

  /**
   * Returns how many nanoseconds a store call on the calling thread may block it now: 0 when inline
   * calls are not allowed or the allowance's deadline passed, {@link Long#MAX_VALUE} when only the
   * call's own timeout bounds it.
   */
  public static long remainingNanos() {
    Allowance a = CURRENT.get();
    if (a == null) {
      return 0;
    }
    if (a.ticker == null) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, a.deadlineNanos - a.ticker.read());
  }

  private static final Scope NOTHING = () -> {};

  private static Scope set(Allowance next) {
    Allowance before = CURRENT.get();
    Thread owner = Thread.currentThread();
    if (next == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(next);
    }
    return () -> {
      if (Thread.currentThread() != owner) {
        return; // a scope belongs to the thread that opened it
      }
      if (before == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(before);
      }
    };
  }

  /** An allowance: until a deadline on a ticker, or (ticker null) unbounded. */
  private record Allowance(Ticker ticker, long deadlineNanos) {
    static final Allowance UNBOUNDED = new Allowance(null, 0);
  }
}
