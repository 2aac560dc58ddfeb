package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.ref.PackId;
import java.time.Instant;

/**
 * One pack object found in a store; immutable and thread-safe.
 *
 * @param store the store's index in {@code claimcheck.stores}
 * @param key the object's key (relative to the store)
 * @param tenant the pack's tenant
 * @param packId the pack's id
 * @param size the object's size in bytes
 * @param lastModified when the store says it was written
 */
public record StoredPack(
    int store, String key, String tenant, PackId packId, long size, Instant lastModified) {}
