package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.internal.breaker.Breaker;
import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The store set: placement, the failover writer and the read search over one immutable list of
 * stores; thread-safe (all mutable state lives in the breakers).
 */
final class FailoverStores implements ClaimStores {

  private final List<StoreSlot> slots;
  private final Placement placement;
  private final Ticker ticker;
  private final long writeBudgetNanos;
  private final FailoverWriter writer;
  private final StoreSearch search;
  private final ReuseSettle settle;
  private final StreamWriter streams;
  private final AtomicBoolean closed = new AtomicBoolean();

  FailoverStores(
      List<StoreSlot> slots,
      Placement placement,
      KeyLayout layout,
      Ticker ticker,
      ReaderScheduler scheduler,
      Backoff retry,
      java.time.Clock clock) {
    this.slots = List.copyOf(slots);
    this.placement = placement;
    this.ticker = ticker;
    this.writeBudgetNanos =
        slots.stream().map(StoreSlot::opDeadline).max(Duration::compareTo).orElseThrow().toNanos();
    this.writer = new FailoverWriter(this.slots, placement, layout, ticker, scheduler, retry);
    this.settle = new ReuseSettle(this.slots, layout, ticker, scheduler, clock);
    this.search = new StoreSearch(this.slots, placement, layout, ticker);
    this.streams = new StreamWriter(this.slots, placement, layout);
  }

  @Override
  public int writeStream(
      String tenant,
      long packId,
      java.io.InputStream source,
      long length,
      java.util.function.BooleanSupplier started)
      throws java.io.IOException {
    return streams.write(tenant, packId, source, length, started);
  }

  @Override
  public int size() {
    return slots.size();
  }

  @Override
  public int home(long packId) {
    return placement.home(packId, slots.size());
  }

  @Override
  public long writeDeadline() {
    return ticker.read() + writeBudgetNanos;
  }

  @Override
  public CompletableFuture<Integer> write(
      String tenant, long packId, List<byte[]> parts, long deadline) {
    return writer.write(tenant, packId, parts, deadline);
  }

  @Override
  public CompletableFuture<Integer> rewrite(
      String tenant, long packId, byte[] pack, long deadline) {
    return writer.rewrite(tenant, packId, pack, deadline);
  }

  @Override
  public CompletableFuture<Void> settle(
      int store, String tenant, long packId, byte[] pack, long deadline) {
    return settle.settle(store, tenant, packId, pack, deadline);
  }

  @Override
  public CompletableFuture<Located> read(
      String tenant, long packId, long offset, int length, long deadline) {
    return search.read(tenant, packId, offset, length, deadline);
  }

  @Override
  public CompletableFuture<StoredObject> stat(String tenant, long packId, long deadline) {
    return search.stat(tenant, packId, deadline);
  }

  @Override
  public CompletableFuture<byte[]> getRange(
      int store, String key, long offset, int length, long deadline) {
    if (store < 0 || store >= slots.size()) {
      return CompletableFuture.failedFuture(
          new StoreException(
              Kind.NOT_FOUND,
              "store " + store + " is past the " + slots.size() + " configured stores"));
    }
    StoreSlot slot = slots.get(store);
    long now = ticker.read();
    if (deadline - now <= 0) {
      return CompletableFuture.failedFuture(
          new StoreException(Kind.UNAVAILABLE, "deadline passed before " + key + " was read"));
    }
    return slot.store()
        .getRange(key, offset, length, slot.timeout(now, deadline))
        .whenComplete(
            (bytes, t) -> {
              if (t != null && StoreException.of(t).kind() == Kind.UNAVAILABLE) {
                slot.breaker().onCouldNotAnswer();
              } else {
                slot.breaker().onAnswer();
              }
            });
  }

  @Override
  public Breaker breaker(int index) {
    return slots.get(index).breaker();
  }

  @Override
  public String describe(int index) {
    return slots.get(index).store().describe();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      for (StoreSlot slot : slots) {
        slot.store().close();
      }
    }
  }
}
