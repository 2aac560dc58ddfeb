package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.SweepLock;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Deletes the deletable packs store by store in batches of at most {@code deleteBatch} keys, one
 * batch in flight at a time, at most {@code maxDeletes} in all, each batch under the tenant's
 * {@link SweepLock}; used by one thread.
 *
 * <p>Per batch: take the lock (put-if-absent; a lock another collection holds stops this store's
 * sweep, one older than {@link SweepLock#LEASE} is taken over), confirm every candidate by a stat
 * (only those still there and still last modified before the cutoff, with the listing's resolution
 * allowance, are deleted: a key pack reused since the listing is kept), delete the confirmed ones
 * unless so much of the lease passed that the delete could outlast it, and remove the lock. {@link
 * SweepLock} argues why a reused pack is never lost.
 *
 * <p>A failed step stops that store's sweep (the store is likely unwell, or another collection
 * sweeps it) and is recorded; the other stores go on. A pack counts as deleted only once its batch
 * completed. A store that cannot stat ({@link ClaimStore#stat}'s default) is never swept.
 */
final class Sweeper {

  private static final int STATS_IN_FLIGHT = 32;
  private static final Duration AWAIT_SLACK = Duration.ofSeconds(1);

  private final List<ClaimStore> stores;
  private final GcOptions options;
  private final Progress progress;
  private final Instant cutoff;
  private final Duration resolution;
  private final Clock clock;
  private final Ticker ticker;
  private final List<StoredPack> deleted = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();

  Sweeper(
      List<ClaimStore> stores,
      GcOptions options,
      Progress progress,
      Instant cutoff,
      Duration resolution,
      Clock clock,
      Ticker ticker) {
    this.stores = stores;
    this.options = options;
    this.progress = progress;
    this.cutoff = cutoff;
    this.resolution = resolution;
    this.clock = clock;
    this.ticker = ticker;
  }

  void sweep(List<StoredPack> deletable) {
    long budget = options.maxDeletes();
    for (int s = 0; s < stores.size() && budget > 0; s++) {
      List<StoredPack> mine = new ArrayList<>();
      for (StoredPack p : deletable) {
        if (p.store() == s) {
          mine.add(p);
        }
      }
      for (int from = 0; from < mine.size() && budget > 0; ) {
        if (Thread.currentThread().isInterrupted()) {
          failures.add("interrupted");
          return;
        }
        int to = (int) Math.min(mine.size(), Math.min(from + options.deleteBatch(), from + budget));
        ClaimStore store = stores.get(s);
        try {
          batch(s, store, mine.subList(from, to));
        } catch (StoreException e) {
          failures.add("store " + s + " (" + store.describe() + "): " + e.getMessage());
          break;
        }
        budget -= to - from;
        from = to;
      }
    }
  }

  /** Steps (1) to (4) for one batch; throws when the store's sweep must stop. */
  private void batch(int s, ClaimStore store, List<StoredPack> batch) {
    String lock = SweepLock.key(options.tenant());
    long locked = ticker.read(); // before the put: the lock's time is no earlier than this
    take(store, lock);
    try {
      List<StoredPack> confirmed = confirm(store, batch);
      Duration left =
          SweepLock.LEASE
              .minus(SweepLock.MARGIN)
              .minusNanos(ticker.read() - locked)
              .minus(AWAIT_SLACK);
      if (left.compareTo(AWAIT_SLACK) < 0) {
        throw new StoreException(
            Kind.UNAVAILABLE,
            "confirming a batch of "
                + batch.size()
                + " took so long that its delete could outlast the sweep lock's lease; nothing of it"
                + " was deleted");
      }
      if (!confirmed.isEmpty()) {
        Duration timeout =
            left.compareTo(options.storeTimeout()) < 0 ? left : options.storeTimeout();
        PackListing.await(
            store,
            store.deleteAll(confirmed.stream().map(StoredPack::key).toList(), timeout),
            timeout);
      }
      deleted.addAll(confirmed);
      if (!confirmed.isEmpty()) {
        progress.deleted(s, confirmed.size());
      }
    } finally {
      try {
        await(store, store.delete(lock, options.storeTimeout()));
      } catch (StoreException e) {
        failures.add(
            "store "
                + s
                + " ("
                + store.describe()
                + "): the sweep lock "
                + lock
                + " could not be removed ("
                + e.getMessage()
                + "); it expires "
                + SweepLock.LEASE.toMinutes()
                + " min after it was taken");
      }
    }
  }

  /** Takes the lock, or takes over one older than the lease; throws when another holds it. */
  private void take(ClaimStore store, String lock) {
    byte[] owner =
        ("collection of tenant " + options.tenant() + " sweeping since " + clock.instant())
            .getBytes(StandardCharsets.UTF_8);
    try {
      await(store, store.putIfAbsent(lock, owner, options.storeTimeout()));
      return;
    } catch (StoreException e) {
      if (e.kind() != Kind.ALREADY_EXISTS) {
        throw new StoreException(
            e.kind(), "the sweep lock " + lock + " could not be taken: " + e.getMessage(), null, e);
      }
    }
    StoredObject held = await(store, store.stat(lock, options.storeTimeout()));
    if (SweepLock.held(held, clock.instant())) {
      throw new StoreException(
          Kind.UNAVAILABLE,
          "another collection of tenant "
              + options.tenant()
              + " is sweeping this store (its lock "
              + lock
              + " was written at "
              + held.lastModified()
              + "; a crashed collection's lock expires "
              + SweepLock.LEASE.toMinutes()
              + " min after that): nothing deleted here");
    }
    // Stale: take it over by delete and put-if-absent, not by a plain put, so of two collections
    // taking over one stale lock at once only one wins (the other finds the winner's lock and
    // stops).
    await(store, store.delete(lock, options.storeTimeout()));
    try {
      await(store, store.putIfAbsent(lock, owner, options.storeTimeout()));
    } catch (StoreException e) {
      throw new StoreException(
          e.kind() == Kind.ALREADY_EXISTS ? Kind.UNAVAILABLE : e.kind(),
          "the stale sweep lock "
              + lock
              + " was taken over by another collection first, or"
              + " could not be taken: "
              + e.getMessage()
              + ": nothing deleted here",
          null,
          e);
    }
  }

  /** The candidates still there and still last modified before the cutoff, by one stat each. */
  private List<StoredPack> confirm(ClaimStore store, List<StoredPack> batch) {
    List<StoredPack> confirmed = new ArrayList<>(batch.size());
    for (int from = 0; from < batch.size(); from += STATS_IN_FLIGHT) {
      List<StoredPack> chunk = batch.subList(from, Math.min(batch.size(), from + STATS_IN_FLIGHT));
      List<CompletableFuture<StoredObject>> stats = new ArrayList<>(chunk.size());
      for (StoredPack p : chunk) {
        stats.add(store.stat(p.key(), options.storeTimeout()));
      }
      for (int i = 0; i < chunk.size(); i++) {
        StoredObject now;
        try {
          now = await(store, stats.get(i));
        } catch (StoreException e) {
          if (e.kind() == Kind.NOT_FOUND) {
            continue; // gone already: nothing to delete
          }
          throw new StoreException(
              e.kind(),
              "confirming " + chunk.get(i).key() + " before deleting it failed: " + e.getMessage(),
              null,
              e);
        }
        if (now.lastModified().plus(resolution).isBefore(cutoff)) {
          confirmed.add(chunk.get(i));
        }
      }
    }
    return confirmed;
  }

  private <T> T await(ClaimStore store, CompletableFuture<T> f) {
    return PackListing.await(store, f, options.storeTimeout());
  }

  List<StoredPack> deleted() {
    return deleted;
  }

  List<String> failures() {
    return failures;
  }
}
