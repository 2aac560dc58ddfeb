package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Writes one pack to the first store that takes it; thread-safe (each write keeps its own state).
 *
 * <p>A round tries the home store, then each next one in list order, wrapping; stores whose breaker
 * is open are skipped unless every one is, so a write is never refused untried. A collision ({@code
 * ALREADY_EXISTS}) ends the write at once: the caller mints a fresh pack id. Any answer closes a
 * store's breaker; only "could not answer" opens it — a throttled store is a reachable one, and the
 * write fails over past it. When every store tried in a round throttled or could not answer, the
 * round is tried again after a {@link Backoff} (exponential, full jitter; the smallest Retry-After
 * when every store sent one), as long as the next round can start before the deadline, so a short
 * throttle of every store does not fail the write; a round in which any store gave a final answer
 * (403) is not repeated. Every attempt of every round stays under the one absolute deadline it is
 * given; the failure names each store's reason in the last round.
 */
final class FailoverWriter {

  private final List<StoreSlot> slots;
  private final Placement placement;
  private final KeyLayout layout;
  private final Ticker ticker;
  private final ReaderScheduler scheduler;
  private final Backoff backoff;

  FailoverWriter(
      List<StoreSlot> slots,
      Placement placement,
      KeyLayout layout,
      Ticker ticker,
      ReaderScheduler scheduler,
      Backoff backoff) {
    this.slots = slots;
    this.placement = placement;
    this.layout = layout;
    this.ticker = ticker;
    this.scheduler = scheduler;
    this.backoff = backoff;
  }

  /** Writes the pack whose bytes are the concatenation of {@code parts} (none copied). */
  CompletableFuture<Integer> write(String tenant, long packId, List<byte[]> parts, long deadline) {
    return round(
        new Write(
            packId, layout.key(tenant, packId), parts, false, deadline, new LinkedHashMap<>()),
        1);
  }

  /**
   * Like {@link #write}, but each attempt is a replacing {@link
   * io.ankusa.claimcheck.store.ClaimStore#put}: for a content-addressed pack whose stored bytes
   * were checked to be {@code pack}, so the store that takes it lists it as just written.
   */
  CompletableFuture<Integer> rewrite(String tenant, long packId, byte[] pack, long deadline) {
    return round(
        new Write(
            packId,
            layout.key(tenant, packId),
            List.of(pack),
            true,
            deadline,
            new LinkedHashMap<>()),
        1);
  }

  private CompletableFuture<Integer> round(Write w, int round) {
    List<StoreSlot> candidates = new ArrayList<>();
    int[] order = placement.writeOrder(w.packId, slots.size());
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
    return attempt(w, round, candidates, 0, new ArrayList<>());
  }

  private CompletableFuture<Integer> attempt(
      Write w, int round, List<StoreSlot> candidates, int i, List<Failure> failures) {
    if (i == candidates.size()) {
      return endOfRound(w, round, failures);
    }
    StoreSlot slot = candidates.get(i);
    long now = ticker.read();
    if (w.deadline - now <= 0) {
      for (StoreSlot rest : candidates.subList(i, candidates.size())) {
        if (!w.latest.containsKey(rest.index())) { // one that answered before keeps its reason
          failures.add(
              new Failure(
                  rest,
                  new StoreException(Kind.UNAVAILABLE, "not tried: the write deadline passed")));
        }
      }
      return CompletableFuture.failedFuture(allFailed(w, round, failures));
    }
    CompletableFuture<Void> put;
    try {
      Duration timeout = slot.timeout(now, w.deadline);
      put =
          w.replace
              ? slot.store().put(w.key, w.parts.get(0), timeout)
              : slot.store().putPartsIfAbsent(w.key, w.parts, timeout);
    } catch (RuntimeException e) {
      put = CompletableFuture.failedFuture(e);
    }
    return put.handle(
            (ok, t) -> {
              if (t == null) {
                slot.breaker().onAnswer();
                return CompletableFuture.completedFuture(slot.index());
              }
              Error error = Errors.errorBehind(t);
              if (error != null) {
                return CompletableFuture.<Integer>failedFuture(
                    error); // not the store's: no failover
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
              return attempt(w, round, candidates, i + 1, failures);
            })
        .thenCompose(Function.identity());
  }

  /** Every store of round {@code round} failed: try the round again after a backoff, or give up. */
  private CompletableFuture<Integer> endOfRound(Write w, int round, List<Failure> failures) {
    Duration retryAfter = null;
    for (Failure f : failures) {
      if (f.error.kind() != Kind.THROTTLED && f.error.kind() != Kind.UNAVAILABLE) {
        return CompletableFuture.failedFuture(allFailed(w, round, failures));
      }
      Duration ra = f.error.retryAfter().orElse(Duration.ZERO);
      retryAfter = retryAfter == null || ra.compareTo(retryAfter) < 0 ? ra : retryAfter;
    }
    for (Failure f : failures) {
      w.latest.put(f.slot.index(), f);
    }
    long delay =
        backoff.delayNanos(
            round,
            retryAfter == null || retryAfter.isZero() ? null : retryAfter,
            w.deadline - ticker.read());
    if (delay < 0) {
      return CompletableFuture.failedFuture(allFailed(w, round, failures));
    }
    CompletableFuture<Integer> next = new CompletableFuture<>();
    scheduler.schedule(
        () -> {
          if (next.isDone()) {
            return; // the caller gave up (cancelled)
          }
          CompletableFuture<Integer> r;
          try {
            r = round(w, round + 1);
          } catch (RuntimeException | Error e) {
            r = CompletableFuture.failedFuture(e);
          }
          r.whenComplete(
              (v, t) -> {
                if (t == null) {
                  next.complete(v);
                } else {
                  next.completeExceptionally(t);
                }
              });
        },
        delay);
    return next;
  }

  /**
   * The failure of write {@code w} after {@code rounds} rounds: every store it tried, in the order
   * first tried, with its latest reason (a store skipped in later rounds for its open breaker keeps
   * the reason it gave before).
   */
  private static StoreException allFailed(Write w, int rounds, List<Failure> lastRound) {
    for (Failure f : lastRound) {
      w.latest.put(f.slot.index(), f);
    }
    List<Failure> failures = new ArrayList<>(w.latest.values());
    StringBuilder msg =
        new StringBuilder("no store took ")
            .append(w.key)
            .append(rounds > 1 ? " in " + rounds + " rounds" : "")
            .append(": ");
    for (int i = 0; i < failures.size(); i++) {
      Failure f = failures.get(i);
      msg.append(i == 0 ? "" : "; ")
          .append("store ")
          .append(f.slot.index())
          .append(" (")
          .append(f.slot.store().describe())
          .append(") ")
          .append(f.error.getMessage());
    }
    StoreException result =
        new StoreException(
            Kind.UNAVAILABLE,
            msg.toString(),
            failures.stream()
                .map(f -> f.error.retryAfter().orElse(null))
                .filter(java.util.Objects::nonNull)
                .findFirst()
                .orElse(null),
            failures.isEmpty() ? null : failures.get(0).error);
    for (Failure f : failures.subList(Math.min(1, failures.size()), failures.size())) {
      result.addSuppressed(f.error);
    }
    return result;
  }

  /**
   * What one write writes (the pack's parts, in order; a rewrite's pack is one part), by when, and
   * each store's latest failure (by index, in the order first tried; updated only at the end of a
   * round, by the one thread running the write).
   */
  private record Write(
      long packId,
      String key,
      List<byte[]> parts,
      boolean replace,
      long deadline,
      Map<Integer, Failure> latest) {}

  /** One store's reason for not taking the pack. */
  private record Failure(StoreSlot slot, StoreException error) {}
}
