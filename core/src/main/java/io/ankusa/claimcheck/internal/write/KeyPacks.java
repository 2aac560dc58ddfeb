package io.ankusa.claimcheck.internal.write;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntry;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.util.List;

/**
 * A key pack found already stored under its content-derived id: read back and checked, then written
 * again so a collection running now keeps it; immutable and thread-safe.
 */
final class KeyPacks {

  private final ClaimStores stores;
  private final Ticker ticker;
  private final Tenant tenant;

  KeyPacks(ClaimStores stores, Ticker ticker, Tenant tenant) {
    this.stores = stores;
    this.ticker = ticker;
    this.tenant = tenant;
  }

  /**
   * Returns the refs of {@code pack} once a read-back shows that the pack already stored under its
   * content-derived id {@code id} holds our claims (length and CRC32C of each, one ranged read per
   * claim). A pack that holds other bytes — a 64-bit content-id collision, or an object damaged or
   * written by something else — fails the check-in {@code CORRUPT}: the id is derived from the
   * content, so a retry would find the same object, and a ref to it would redeem wrong bytes or
   * fail as corrupt on every consumer. A read-back that gets no answer is {@code UNAVAILABLE}
   * (retriable).
   */
  List<ClaimRef> ours(PackId id, EncodedPack pack, int[] rawLengths, long deadline) {
    for (PackEntry entry : pack.entries()) {
      byte[] stored;
      try {
        stored =
            Await.await(
                    stores.read(
                        tenant.value(), id.value(), entry.offset(), entry.length(), deadline),
                    deadline,
                    ticker)
                .bytes();
      } catch (StoreException e) {
        throw new Failure(
            Reason.UNAVAILABLE,
            "check-in for tenant "
                + tenant
                + ": pack "
                + id.hex()
                + " already exists under the content's id, but reading it back failed: "
                + e.getMessage(),
            e);
      }
      try {
        Packs.checkClaim(entry, stored);
      } catch (CorruptPackException e) {
        throw new Failure(
            Reason.CORRUPT,
            "check-in for tenant "
                + tenant
                + ": pack "
                + id.hex()
                + " already stored under the content's id does not hold these bytes ("
                + e.getMessage()
                + "); it is not ours, so no ref to it is returned: remove that"
                + " object (a content-id collision or a damaged pack)",
            e);
      }
    }
    return CheckIns.refs(tenant, id, pack, rawLengths, false);
  }

  /**
   * Writes the key pack {@code id}, just checked to be ours, again ({@link
   * io.ankusa.claimcheck.store.ClaimStore#put}) under the same write deadline, so the store lists
   * it as written now: the collector judges an unmarked pack by its last-modified time, and without
   * this a key re-sent while a collection runs (its record past the noted end offsets) would name a
   * pack listed with the time of its first write, and lose it. Failure is {@code UNAVAILABLE}: the
   * pack may be about to be collected, so no ref is returned.
   *
   * <p>Why a rewrite rather than a copy onto itself or a second look by the sweep: its bytes are
   * the same by construction (they were just read back), so a concurrent reader gets the same bytes
   * from the old object or the new one, and S3 (a replacing PUT), the file store (rename over the
   * name) and the memory store all replace atomically; a rewrite also re-creates the pack if a
   * sweep deleted it after our put-if-absent saw it, which a copy (CopyObject onto itself needs a
   * metadata change and fails once the source is gone) cannot; and a sweep cannot see a record
   * still in flight to Kafka, so a second look there would not be enough. It goes through the
   * failover writer: the home store first, another one (a fresh copy there) when the home store
   * cannot take it; a reader finds the pack in any store, and an old copy left elsewhere may be
   * collected harmlessly.
   *
   * <p>A rewrite that lands while a sweep is between confirming the pack as old and deleting it
   * would still be deleted: so after it, {@link
   * io.ankusa.claimcheck.internal.placement.ClaimStores#settle} waits out the tenant's sweep lock
   * in that store and writes the pack again when it is gone or was deleted (the protocol {@link
   * io.ankusa.claimcheck.store.SweepLock} describes; two stats per reuse).
   */
  void refresh(PackId id, EncodedPack pack, long deadline) {
    byte[] bytes = pack.bytes(); // joined once: a replacing put takes one array
    try {
      int store =
          Await.await(
              stores.rewrite(tenant.value(), id.value(), bytes, deadline), deadline, ticker);
      Await.await(
          stores.settle(store, tenant.value(), id.value(), bytes, deadline), deadline, ticker);
    } catch (StoreException e) {
      throw new Failure(
          Reason.UNAVAILABLE,
          "check-in for tenant "
              + tenant
              + ": key pack "
              + id.hex()
              + " is already stored, but writing it again (so that a collection running"
              + " now keeps it) failed: "
              + e.getMessage(),
          e);
    }
  }
}
