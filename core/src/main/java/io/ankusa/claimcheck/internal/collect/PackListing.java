package io.ankusa.claimcheck.internal.collect;

import io.ankusa.claimcheck.collect.StoredPack;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ListPage;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoredObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Lists every pack of one store, at both key layouts at once (a tenant's packs all lie under
 * {@code <tenant>/}); stateless and thread-safe.
 *
 * <p>The listing is whole or nothing: a page that fails fails the listing with its {@link
 * StoreException}, never a shorter list. Objects that are not pack keys are counted, not listed.
 */
public final class PackListing {

  private PackListing() {}

  /** The packs and the count of other objects one listing found. */
  public record Result(List<StoredPack> packs, long otherObjects) {}

  /**
   * Lists the packs of {@code tenant} (or of every tenant, when null) in {@code store}, the store
   * at {@code index}; each page within {@code pageTimeout}. Blocks; throws {@link StoreException}
   * when the listing could not complete (an interrupt restores the flag and fails it too).
   */
  public static Result list(ClaimStore store, int index, String tenant, Duration pageTimeout) {
    String prefix = tenant == null ? "" : tenant + "/";
    List<StoredPack> packs = new ArrayList<>();
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
        }
      }
      if (page.continuation() != null && page.continuation().equals(continuation)) {
        throw new StoreException(StoreException.Kind.UNAVAILABLE,
            store.describe() + " repeated the continuation token " + continuation);
      }
      continuation = page.continuation();
    } while (continuation != null);
    return new Result(packs, other);
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
      throw new StoreException(StoreException.Kind.UNAVAILABLE,
          store.describe() + " did not answer within " + t.toMillis() + " ms");
    }
  }
}
