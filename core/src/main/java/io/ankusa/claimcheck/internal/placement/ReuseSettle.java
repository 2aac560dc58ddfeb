package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.SweepLock;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The writer's half of the {@link SweepLock} protocol: after a reused key pack was rewritten into a
 * store, makes sure no sweep running now deletes it; thread-safe (each call keeps its state on its
 * own chain of futures).
 *
 * <p>Loop until the deadline: while the tenant's lock is held in that store, wait ({@link #POLL},
 * on the injected scheduler) and rewrite the pack once it is gone; with no lock held, stat the
 * pack: present ends the loop, missing rewrites it and loops. A step that fails retriably is tried
 * again after {@link #POLL}. Costs two stats per reuse; the deadline passing while a sweep holds
 * the lock, or while the store keeps failing, is {@code UNAVAILABLE} (retriable). {@link SweepLock}
 * argues why this is enough.
 */
final class ReuseSettle {

  /** How often a held lock is looked at again. */
  static final Duration POLL = Duration.ofMillis(250);

  private final List<StoreSlot> slots;
  private final KeyLayout layout;
  private final Ticker ticker;
  private final ReaderScheduler scheduler;
  private final Clock clock;

  ReuseSettle(
      List<StoreSlot> slots,
      KeyLayout layout,
      Ticker ticker,
      ReaderScheduler scheduler,
      Clock clock) {
    this.slots = slots;
    this.layout = layout;
    this.ticker = ticker;
    this.scheduler = scheduler;
    this.clock = clock;
  }

  CompletableFuture<Void> settle(
      int store, String tenant, long packId, byte[] pack, long deadline) {
    StoreSlot slot = slots.get(store);
    return step(slot, layout.key(tenant, packId), SweepLock.key(tenant), pack, deadline);
  }

  /**
   * One {@link #attempt}, tried again after {@link #POLL} while it fails retriably (the store could
   * not answer or throttled: a closed pooled connection, a timeout) and the deadline leaves time;
   * an {@link Error} or another failure ends it.
   */
  private CompletableFuture<Void> step(
      StoreSlot slot, String key, String lock, byte[] pack, long deadline) {
    return attempt(slot, key, lock, pack, deadline)
        .exceptionallyCompose(
            e -> {
              if (Errors.errorBehind(e) != null
                  || !retriable(StoreException.of(e).kind())
                  || deadline - ticker.read() <= POLL.toNanos()) {
                return CompletableFuture.failedFuture(e);
              }
              return later(slot, deadline).thenCompose(v -> step(slot, key, lock, pack, deadline));
            });
  }

  private static boolean retriable(Kind kind) {
    return kind == Kind.UNAVAILABLE || kind == Kind.THROTTLED;
  }

  private CompletableFuture<Void> attempt(
      StoreSlot slot, String key, String lock, byte[] pack, long deadline) {
    long now = ticker.read();
    if (deadline - now <= 0) {
      return failed(
          slot,
          "the write deadline passed while a collection of the tenant held its"
              + " sweep lock "
              + lock
              + " there");
    }
    Duration t = slot.timeout(now, deadline);
    return slot.store()
        .stat(lock, t)
        .handle(
            (held, e) -> {
              if (e == null && SweepLock.held(held, clock.instant())) {
                return later(slot, deadline)
                    .thenCompose(
                        v -> slot.store().put(key, pack, slot.timeout(ticker.read(), deadline)))
                    .thenCompose(v -> step(slot, key, lock, pack, deadline));
              }
              if (e != null && StoreException.of(e).kind() != Kind.NOT_FOUND) {
                return CompletableFuture.<Void>failedFuture(
                    wrap(slot, "looking for the sweep lock " + lock, e));
              }
              return present(slot, key, t)
                  .thenCompose(
                      there ->
                          there
                              ? CompletableFuture.<Void>completedFuture(null)
                              : slot.store()
                                  .put(key, pack, slot.timeout(ticker.read(), deadline))
                                  .thenCompose(v -> step(slot, key, lock, pack, deadline)));
            })
        .thenCompose(Function.identity());
  }

  private CompletableFuture<Boolean> present(StoreSlot slot, String key, Duration t) {
    return slot.store()
        .stat(key, t)
        .handle(
            (StoredObject o, Throwable e) -> {
              if (e == null) {
                return CompletableFuture.completedFuture(true);
              }
              if (StoreException.of(e).kind() == Kind.NOT_FOUND) {
                return CompletableFuture.completedFuture(
                    false); // a sweep deleted it: write it again
              }
              return CompletableFuture.<Boolean>failedFuture(wrap(slot, "looking for " + key, e));
            })
        .thenCompose(Function.identity());
  }

  /** Completes after {@link #POLL}, or fails when the deadline comes first. */
  private CompletableFuture<Void> later(StoreSlot slot, long deadline) {
    if (deadline - ticker.read() <= POLL.toNanos()) {
      return failed(
          slot,
          "the write deadline passes while a collection of the tenant holds its"
              + " sweep lock there");
    }
    CompletableFuture<Void> next = new CompletableFuture<>();
    scheduler.schedule(() -> next.complete(null), POLL.toNanos());
    return next;
  }

  private static <T> CompletableFuture<T> failed(StoreSlot slot, String why) {
    return CompletableFuture.failedFuture(
        new StoreException(
            Kind.UNAVAILABLE,
            "store " + slot.index() + " (" + slot.store().describe() + "): " + why));
  }

  private static StoreException wrap(StoreSlot slot, String what, Throwable t) {
    StoreException e = StoreException.of(t);
    return new StoreException(
        Kind.UNAVAILABLE,
        "store "
            + slot.index()
            + " ("
            + slot.store().describe()
            + "): "
            + what
            + " failed: "
            + e.getMessage(),
        null,
        e);
  }
}
