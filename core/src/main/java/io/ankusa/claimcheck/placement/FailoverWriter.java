package io.ankusa.claimcheck.placement;

import io.ankusa.claimcheck.Ticker;
import io.ankusa.claimcheck.store.KeyLayout;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Writes one pack to the first store that takes it; thread-safe (each write keeps its own state).
 *
 * <p>A write tries the home store, then each next one in list order, wrapping; stores whose
 * breaker is open are skipped unless every one is, so a write is never refused untried. A
 * collision ({@code ALREADY_EXISTS}) ends the write at once: the caller mints a fresh pack id.
 * Any answer closes a store's breaker; only "could not answer" opens it — a throttled store is a
 * reachable one. Every attempt stays under the one absolute deadline it is given.
 */
final class FailoverWriter {

  private final List<StoreSlot> slots;
  private final Placement placement;
  private final KeyLayout layout;
  private final Ticker ticker;

  FailoverWriter(List<StoreSlot> slots, Placement placement, KeyLayout layout, Ticker ticker) {
    this.slots = slots;
    this.placement = placement;
    this.layout = layout;
    this.ticker = ticker;
  }

  CompletableFuture<Integer> write(String tenant, long packId, byte[] pack, long deadline) {
    List<StoreSlot> candidates = new ArrayList<>();
    int[] order = placement.writeOrder(packId, slots.size());
    for (int i : order) {
      if (!slots.get(i).breaker().isOpen()) {
        candidates.add(slots.get(i));
      }
    }
    if (candidates.isEmpty()) {
      for (int i : order) {
        candidates.add(slots.get(i));
      }
    }
    String key = layout.key(tenant, packId);
    return attempt(candidates, 0, key, pack, deadline, new ArrayList<>());
  }

  private CompletableFuture<Integer> attempt(
      List<StoreSlot> candidates, int i, String key, byte[] pack, long deadline,
      List<Failure> failures) {
    if (i == candidates.size()) {
      return CompletableFuture.failedFuture(allFailed(key, failures));
    }
    StoreSlot slot = candidates.get(i);
    long now = ticker.read();
    if (deadline - now <= 0) {
      for (StoreSlot rest : candidates.subList(i, candidates.size())) {
        failures.add(new Failure(rest, new StoreException(Kind.UNAVAILABLE,
            "not tried: the write deadline passed")));
      }
      return CompletableFuture.failedFuture(allFailed(key, failures));
    }
    CompletableFuture<Void> put;
    try {
      put = slot.store().putIfAbsent(key, pack, slot.timeout(now, deadline));
    } catch (RuntimeException e) {
      put = CompletableFuture.failedFuture(e);
    }
    return put.handle((ok, t) -> {
      if (t == null) {
        slot.breaker().onAnswer();
        return CompletableFuture.completedFuture(slot.index());
      }
      Error error = Errors.errorBehind(t);
      if (error != null) {
        return CompletableFuture.<Integer>failedFuture(error); // not the store's: no failover
      }
      StoreException e = StoreException.of(t);
      if (e.kind().isAnswer()) {
        slot.breaker().onAnswer();
      } else {
        slot.breaker().onCouldNotAnswer();
      }
      if (e.kind() == Kind.ALREADY_EXISTS) {
        return CompletableFuture.<Integer>failedFuture(e);
      }
      failures.add(new Failure(slot, e));
      return attempt(candidates, i + 1, key, pack, deadline, failures);
    }).thenCompose(Function.identity());
  }

  private static StoreException allFailed(String key, List<Failure> failures) {
    StringBuilder msg = new StringBuilder("no store took ").append(key).append(": ");
    for (int i = 0; i < failures.size(); i++) {
      Failure f = failures.get(i);
      msg.append(i == 0 ? "" : "; ").append("store ").append(f.slot.index()).append(" (")
          .append(f.slot.store().describe()).append(") ").append(f.error.getMessage());
    }
    StoreException result = new StoreException(Kind.UNAVAILABLE, msg.toString(),
        failures.stream().map(f -> f.error.retryAfter().orElse(null))
            .filter(java.util.Objects::nonNull).findFirst().orElse(null),
        failures.isEmpty() ? null : failures.get(0).error);
    for (Failure f : failures.subList(Math.min(1, failures.size()), failures.size())) {
      result.addSuppressed(f.error);
    }
    return result;
  }

  /** One store's reason for not taking the pack. */
  private record Failure(StoreSlot slot, StoreException error) {}
}
