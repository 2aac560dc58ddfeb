package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Finds a pack in any store at either key layout and reads a range of it, or stats it; thread-safe
 * (each search keeps its own state).
 *
 * <p>The plan: every healthy store (breaker closed when the search starts) in the pack's write
 * order at the configured layout, then again at the other layout; then the open-breaker stores the
 * same way — searched last, never skipped. A store that could not answer, or throttled, is not
 * asked again in the same search (that would cost a hung store's timeout twice, or double the load
 * on a throttling one); a 403 is asked again (without ListBucket a missing key answers 403). The
 * result is {@code NOT_FOUND} only when every store answered; otherwise the first store error, so a
 * claim is never declared gone while it may be in a store that did not answer.
 */
final class StoreSearch {

  private final List<StoreSlot> slots;
  private final Placement placement;
  private final KeyLayout layout;
  private final Ticker ticker;

  StoreSearch(List<StoreSlot> slots, Placement placement, KeyLayout layout, Ticker ticker) {
    this.slots = slots;
    this.placement = placement;
    this.layout = layout;
    this.ticker = ticker;
  }

  CompletableFuture<ClaimStores.Located> read(
      String tenant, long packId, long offset, int length, long deadline) {
    return new Search<ClaimStores.Located>(
            plan(tenant, packId),
            deadline,
            KeyLayout.FLAT.key(tenant, packId),
            (ask, timeout) ->
                ask.slot()
                    .store()
                    .getRange(ask.key(), offset, length, timeout)
                    .thenApply(b -> new ClaimStores.Located(b, ask.slot().index(), ask.key())))
        .step(0);
  }

  /**
   * Stats pack {@code packId} of {@code tenant} in the same order and by the same rule as reads.
   */
  CompletableFuture<StoredObject> stat(String tenant, long packId, long deadline) {
    return new Search<StoredObject>(
            plan(tenant, packId),
            deadline,
            KeyLayout.FLAT.key(tenant, packId),
            (ask, timeout) -> ask.slot().store().stat(ask.key(), timeout))
        .step(0);
  }

  private List<Ask> plan(String tenant, long packId) {
    int[] order = placement.writeOrder(packId, slots.size());
    boolean[] open = new boolean[slots.size()];
    for (int i : order) {
      open[i] = slots.get(i).breaker().isOpen();
    }
    List<Ask> plan = new ArrayList<>(4 * slots.size());
    for (boolean healthyPass : new boolean[] {true, false}) {
      for (KeyLayout l : new KeyLayout[] {layout, layout.other()}) {
        for (int i : order) {
          if (open[i] != healthyPass) {
            plan.add(new Ask(slots.get(i), l.key(tenant, packId)));
          }
        }
      }
    }
    return plan;
  }

  /** One store asked for one key. */
  private record Ask(StoreSlot slot, String key) {}

  /** The state of one search: which stores are done with, and the first error. */
  private final class Search<T> {
    private final List<Ask> plan;
    private final long deadline;
    private final String what;
    private final BiFunction<Ask, Duration, CompletableFuture<T>> op;
    private final boolean[] excluded = new boolean[slots.size()];
    private StoreException firstError;

    Search(
        List<Ask> plan,
        long deadline,
        String what,
        BiFunction<Ask, Duration, CompletableFuture<T>> op) {
      this.plan = plan;
      this.deadline = deadline;
      this.what = what;
      this.op = op;
    }

    CompletableFuture<T> step(int k) {
      while (k < plan.size() && excluded[plan.get(k).slot().index()]) {
        k++;
      }
      if (k == plan.size()) {
        return CompletableFuture.failedFuture(
            firstError != null
                ? firstError
                : new StoreException(
                    Kind.NOT_FOUND,
                    "pack "
                        + what
                        + " is in none of the "
                        + slots.size()
                        + " stores, at either key layout"));
      }
      long now = ticker.read();
      if (deadline - now <= 0) {
        StoreException e =
            new StoreException(
                Kind.UNAVAILABLE,
                "deadline passed before every "
                    + "store was asked for pack "
                    + what
                    + (firstError == null ? "" : "; first error: " + firstError.getMessage()),
                null,
                firstError);
        return CompletableFuture.failedFuture(e);
      }
      Ask ask = plan.get(k);
      StoreSlot slot = ask.slot();
      CompletableFuture<T> get;
      try {
        get = op.apply(ask, slot.timeout(now, deadline));
      } catch (RuntimeException e) {
        get = CompletableFuture.failedFuture(e);
      }
      int next = k + 1;
      return get.handle(
              (answer, t) -> {
                if (t == null) {
                  slot.breaker().onAnswer();
                  return CompletableFuture.completedFuture(answer);
                }
                Error error = Errors.errorBehind(t);
                if (error != null) {
                  return CompletableFuture.<T>failedFuture(error); // not the store's
                }
                StoreException e = StoreException.of(t);
                if (e.kind() == Kind.UNAVAILABLE) {
                  slot.breaker().onCouldNotAnswer();
                } else {
                  slot.breaker().onAnswer();
                }
                if (e.kind() != Kind.NOT_FOUND) {
                  if (firstError == null) {
                    firstError = e;
                  }
                  if (e.kind() != Kind.FORBIDDEN) {
                    excluded[slot.index()] = true;
                  }
                }
                return step(next);
              })
          .thenCompose(Function.identity());
    }
  }
}
