package io.ankusa.claimcheck.internal.collect;

import io.ankusa.claimcheck.collect.StoredPack;
import io.ankusa.claimcheck.collect.GcOptions;
import io.ankusa.claimcheck.collect.Progress;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes the deletable packs store by store in batches of at most {@code deleteBatch} keys, one
 * batch in flight at a time, at most {@code maxDeletes} in all; used by one thread.
 *
 * <p>A failed batch stops that store's sweep (the store is likely unwell) and is recorded; the
 * other stores go on. A pack counts as deleted only once its batch completed.
 */
final class Sweeper {

  private final List<ClaimStore> stores;
  private final GcOptions options;
  private final Progress progress;
  private final List<StoredPack> deleted = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();

  Sweeper(List<ClaimStore> stores, GcOptions options, Progress progress) {
    this.stores = stores;
    this.options = options;
    this.progress = progress;
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
        List<StoredPack> batch = mine.subList(from, to);
        List<String> keys = batch.stream().map(StoredPack::key).toList();
        ClaimStore store = stores.get(s);
        try {
          PackListing.await(store, store.deleteAll(keys, options.storeTimeout()),
              options.storeTimeout());
        } catch (StoreException e) {
          failures.add("store " + s + " (" + store.describe() + "): " + e.getMessage());
          break;
        }
        deleted.addAll(batch);
        progress.deleted(s, batch.size());
        budget -= batch.size();
        from = to;
      }
    }
  }

  List<StoredPack> deleted() {
    return deleted;
  }

  List<String> failures() {
    return failures;
  }
}
