package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Lists every pack of one store, at both key layouts at once (a tenant's packs all lie under {@code
 * <tenant>/}); stateless and thread-safe.
 *
 * <p>The listing is whole or nothing: a page that fails fails the listing with its {@link
 * StoreException}, never a shorter list. Objects that are not pack keys are counted, not listed.
 */
final class PackListing {

  private PackListing() {}

  /**
   * The packs and the count of other objects one listing found, and the shard directories passed
   * over because something besides this tenant's packs lies in them.
   */
  record Result(List<StoredPack> packs, long otherObjects, Set<String> foreignDirectories) {

    /** Copies the collections. */
    public Result {
      packs = List.copyOf(packs);
      foreignDirectories = Set.copyOf(foreignDirectories);
    }
  }

  /**
   * Lists the packs of {@code tenant} (or of every tenant, when null) in {@code store}, the store
   * at {@code index}; each page within {@code pageTimeout}. Blocks; throws {@link StoreException}
   * when the listing could not complete (an interrupt restores the flag and fails it too).
   *
   * <p>A sharded pack key {@code <tenant>/<xy>/<xy…>} is exactly what another deployment writes
   * when its store prefix is nested at {@code <ours>/<tenant>/} and its tenant is named {@code xy}
   * (two hex digits) at the flat layout: one in 256 of its packs parse as ours. Such a deployment
   * always leaves other keys in that directory (its packs of other shards, its other layout), so a
   * shard directory that holds anything but this tenant's packs of that shard is passed over whole:
   * its packs are counted as other objects, never listed, so never deleted.
   */
  public static Result list(ClaimStore store, int index, String tenant, Duration pageTimeout) {
    String prefix = tenant == null ? "" : tenant + "/";
    List<StoredPack> packs = new ArrayList<>();
    Set<String> foreign = new HashSet<>();
    long other = 0;
    String continuation = null;
    do {
      ListPage page = await(store, store.list(prefix, continuation, pageTimeout), pageTimeout);
      for (StoredObject o : page.objects()) {
        Optional<String> t = tenant == null ? PackKeys.tenantOf(o.key()) : Optional.of(tenant);
        Optional<PackId> id = t.flatMap(name -> PackKeys.packId(name, o.key()));
        if (id.isPresent()) {
          packs.add(new StoredPack(index, o.key(), t.get(), id.get(), o.size(), o.lastModified()));
        } else {
          other++;
          String dir = directory(o.key());
          if (dir != null) {
            foreign.add(dir);
          }
        }
      }
      if (page.continuation() != null && page.continuation().equals(continuation)) {
        throw new StoreException(
            StoreException.Kind.UNAVAILABLE,
            store.describe() + " repeated the continuation token " + continuation);
      }
      continuation = page.continuation();
    } while (continuation != null);
    if (foreign.isEmpty()) {
      return new Result(packs, other, foreign);
    }
    List<StoredPack> ours = new ArrayList<>(packs.size());
    for (StoredPack p : packs) {
      String dir = directory(p.key());
      if (dir != null && foreign.contains(dir)) {
        other++;
      } else {
        ours.add(p);
      }
    }
    return new Result(ours, other, foreign);
  }

  /** {@code <a>/<b>/} of a key {@code <a>/<b>/<rest>}, or null for a key with one slash or none. */
  private static String directory(String key) {
    int first = key.indexOf('/');
    int second = first < 0 ? -1 : key.indexOf('/', first + 1);
    return second < 0 ? null : key.substring(0, second + 1);
  }

  static <T> T await(ClaimStore store, java.util.concurrent.CompletableFuture<T> f, Duration t) {
    try {
      // The store bounds the call itself; the extra second only guards against one that does not.
      return f.get(t.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException(StoreException.Kind.UNAVAILABLE, store.describe() + ": interrupted");
    } catch (ExecutionException e) {
      throw StoreException.of(e);
    } catch (TimeoutException e) {
      throw new StoreException(
          StoreException.Kind.UNAVAILABLE,
          store.describe() + " did not answer within " + t.toMillis() + " ms");
    }
  }
}
