package io.ankusa.claimcheck.store;

import java.util.Objects;

/**
 * Lets the calling thread watch the bytes of an inline read arrive in the answer's array; a
 * thread-confined setting, so thread-safe by confinement.
 *
 * <p>A store that serves a read on the calling thread ({@link InlineCalls}) and gathers the body
 * straight into the array it will answer with may {@link #report} how much of that array is filled,
 * each time more arrived. A watcher (a redeem) can then work on the bytes already there (decrypt
 * finished segments, say) while the rest is still on the wire, instead of after the last byte. What
 * a watcher sees is a hint, nothing more: the read's outcome, its checks and its answer are exactly
 * what they would be unwatched, so a watcher must use its work only when the array it is finally
 * given is the very array it watched, whole ({@code filled == length}); a new attempt reports a new
 * array. Bytes below {@code filled} never change afterwards. A store that cannot report simply
 * never calls this class.
 */
public final class InlineArrivals {

  /** Sees an inline read's answer fill; called on the watching thread only. */
  @FunctionalInterface
  public interface Watcher {
    /**
     * Bytes {@code [0, filled)} of {@code answer} have arrived and will not change; must not block
     * or throw (an exception is swallowed and the watcher is not called again in this scope).
     */
    void arrived(byte[] answer, int filled);
  }

  private static final ThreadLocal<Watcher> CURRENT = new ThreadLocal<>();

  private InlineArrivals() {}

  /**
   * Lets {@code watcher} see the inline reads of the calling thread until the returned scope is
   * closed (on the same thread), which restores what was watched before.
   */
  public static InlineCalls.Scope watch(Watcher watcher) {
    Objects.requireNonNull(watcher, "watcher");
    Watcher before = CURRENT.get();
    Thread owner = Thread.currentThread();
    CURRENT.set(watcher);
    return () -> {
      if (Thread.currentThread() != owner) {
        return;
      }
      if (before == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(before);
      }
    };
  }

  /** The calling thread's watcher, or null: a store looks it up once per read. */
  public static Watcher current() {
    return CURRENT.get();
  }

  /**
   * Tells {@code watcher} (from {@link #current()}, may be null) that {@code [0, filled)} of {@code
   * answer} arrived; returns the watcher to tell next time, null once it failed.
   */
  public static Watcher report(Watcher watcher, byte[] answer, int filled) {
    if (watcher == null) {
      return null;
    }
    try {
      watcher.arrived(answer, filled);
      return watcher;
    } catch (RuntimeException e) {
      return null; // a hint that failed is no hint: the read goes on unwatched
    }
  }
}
