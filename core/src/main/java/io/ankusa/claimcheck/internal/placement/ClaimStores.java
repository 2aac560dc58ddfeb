package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.internal.breaker.Breaker;
import io.ankusa.claimcheck.internal.breaker.BreakerListener;
import io.ankusa.claimcheck.internal.breaker.Breakers;
import io.ankusa.claimcheck.internal.schedule.Backoff;
import io.ankusa.claimcheck.internal.schedule.ReaderScheduler;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.SweepLock;
import io.ankusa.claimcheck.time.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The ordered list of stores claim packs live in, with placement, failover writes, breakers and the
 * read search across stores and key layouts; implementations are thread-safe.
 *
 * <p>Stores are named by their index in the list. Every failure is a {@link
 * io.ankusa.claimcheck.store.StoreException}: a write that collides is {@code ALREADY_EXISTS} at
 * once; a write that every store refused is {@code UNAVAILABLE} naming each store's reason in
 * attempt order; a read is {@code NOT_FOUND} only when every store answered.
 */
public interface ClaimStores extends AutoCloseable {

  /** Returns how many stores there are. */
  int size();

  /** Returns the index of the store pack {@code packId} goes to first. */
  int home(long packId);

  /**
   * Returns the absolute deadline (on this set's ticker) of one check-in started now: the largest
   * operation deadline among the stores from now. It covers every store, attempt and pack-id retry
   * of that check-in.
   */
  long writeDeadline();

  /**
   * Writes a pack under its key only if nothing is there: the home store first, then the next ones
   * in list order, skipping stores whose breaker is open unless all are. When every store tried
   * throttled or could not answer, tries them all again after a backoff, inside {@code
   * deadlineNanos}. Completes with the index of the store that durably took the pack, whose bytes
   * are the concatenation of {@code parts} ({@link ClaimStore#putPartsIfAbsent(String, List,
   * java.time.Duration)}: none copied into one array).
   */
  CompletableFuture<Integer> write(
      String tenant, long packId, List<byte[]> parts, long deadlineNanos);

  /** {@link #write(String, long, List, long)} of a pack held in one array. */
  default CompletableFuture<Integer> write(
      String tenant, long packId, byte[] pack, long deadlineNanos) {
    return write(tenant, packId, List.of(pack), deadlineNanos);
  }

  /**
   * Writes a content-addressed pack whose stored copy was checked to hold exactly {@code pack}
   * again, replacing any object under its key ({@link ClaimStore#put}), in the same store order,
   * failover and retries as {@link #write}: the store that takes it then lists it as written now,
   * so a collector that started before does not take it for an old unreferenced pack. Completes
   * with the index of that store.
   */
  CompletableFuture<Integer> rewrite(String tenant, long packId, byte[] pack, long deadlineNanos);

  /**
   * After {@link #rewrite} put the pack into store {@code store}: waits while a collection holds
   * the tenant's {@link SweepLock} there and rewrites the pack after it, and rewrites it when it is
   * missing, until neither holds (the writer's half of the protocol {@link SweepLock} argues);
   * {@code UNAVAILABLE} when the deadline passes first or a stat fails.
   */
  CompletableFuture<Void> settle(
      int store, String tenant, long packId, byte[] pack, long deadlineNanos);

  /**
   * Writes a streamed claim's object (the bytes {@code source} yields: {@code length} of them, or
   * to its end when -1) under pack {@code packId}'s key if nothing is there, <b>blocking</b> while
   * the store reads {@code source}; the stores in write order, open breakers skipped unless all
   * are, the next one tried only while {@code started} says nothing was read yet. Returns the index
   * of the store that durably took it.
   *
   * @throws IOException when reading {@code source} failed
   * @throws StoreException {@code ALREADY_EXISTS} on a collision, else {@code UNAVAILABLE} naming
   *     each store tried
   */
  default int writeStream(
      String tenant, long packId, InputStream source, long length, BooleanSupplier started)
      throws IOException {
    throw new StoreException(
        StoreException.Kind.UNAVAILABLE, "this store set cannot write streamed claims");
  }

  /**
   * Finds pack {@code packId} of {@code tenant} in any store at either layout and reads {@code
   * length} bytes of it at {@code offset}.
   */
  CompletableFuture<Located> read(
      String tenant, long packId, long offset, int length, long deadlineNanos);

  /**
   * Finds pack {@code packId} of {@code tenant} in any store at either layout, as {@link #read}
   * does, and answers its stat (no byte of it is read): {@code NOT_FOUND} only when every store
   * answered so.
   */
  CompletableFuture<StoredObject> stat(String tenant, long packId, long deadlineNanos);

  /**
   * Reads {@code length} bytes at {@code offset} of {@code key} in store {@code store}: one ranged
   * read; a store index past the list is {@code NOT_FOUND}.
   */
  CompletableFuture<byte[]> getRange(
      int store, String key, long offset, int length, long deadlineNanos);

  /** Returns store {@code index}'s breaker. */
  Breaker breaker(int index);

  /** Returns store {@code index}'s description (never a credential). */
  String describe(int index);

  /** Closes every store; idempotent. */
  @Override
  void close();

  /** Bytes read from a pack, with the store and key they came from. */
  record Located(byte[] bytes, int store, String key) {}

  /** Returns a builder of a store set. */
  static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ClaimStores}; not thread-safe. */
  final class Builder {
    private final List<ClaimStore> stores = new ArrayList<>();
    private final List<Duration> deadlines = new ArrayList<>();
    private Placement placement = Placement.ORDERED;
    private KeyLayout layout = KeyLayout.FLAT;
    private Duration cooldown = Duration.ofSeconds(30);
    private Ticker ticker = Ticker.system();
    private BreakerListener listener = BreakerListener.NONE;
    private ReaderScheduler scheduler = ReaderScheduler.system();
    private Backoff retry = Backoff.DEFAULT;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** Adds the next store (its index is the count added before it), with its op deadline. */
    public Builder add(ClaimStore store, Duration opDeadline) {
      if (opDeadline.isNegative() || opDeadline.isZero()) {
        throw new IllegalArgumentException("op deadline must be positive: " + opDeadline);
      }
      stores.add(Objects.requireNonNull(store, "store"));
      deadlines.add(opDeadline);
      return this;
    }

    public Builder placement(Placement placement) {
      this.placement = Objects.requireNonNull(placement, "placement");
      return this;
    }

    public Builder layout(KeyLayout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    public Builder cooldown(Duration cooldown) {
      this.cooldown = Objects.requireNonNull(cooldown, "cooldown");
      return this;
    }

    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public Builder breakerListener(BreakerListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Sets what runs the timers between write rounds (default {@link ReaderScheduler#system()}).
     */
    public Builder scheduler(ReaderScheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets the backoff between write rounds that every store refused (default {@link
     * Backoff#DEFAULT}).
     */
    public Builder retry(Backoff retry) {
      this.retry = Objects.requireNonNull(retry, "retry");
      return this;
    }

    /** Sets the wall clock a sweep lock's age is judged by (default system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Returns the store set; at least one store is required. */
    public ClaimStores build() {
      if (stores.isEmpty()) {
        throw new IllegalArgumentException("at least one store is required");
      }
      List<StoreSlot> slots = new ArrayList<>();
      for (int i = 0; i < stores.size(); i++) {
        slots.add(
            new StoreSlot(
                i,
                stores.get(i),
                deadlines.get(i),
                Breakers.fixedCooldown(i, cooldown, ticker, listener)));
      }
      return new FailoverStores(slots, placement, layout, ticker, scheduler, retry, clock);
    }
  }
}
