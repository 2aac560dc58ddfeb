package io.ankusa.claimcheck.store;

import java.time.Instant;
import java.util.Objects;

/**
 * One object a store listed: its key (relative to the store, as every {@link ClaimStore} operation
 * takes it), size and last-modified time; immutable and thread-safe.
 *
 * @param key the object's key, without the store's own prefix
 * @param size the object's size in bytes
 * @param lastModified when the store says the object was written
 */
public record StoredObject(String key, long size, Instant lastModified) {

  /** Validates the fields. */
  public StoredObject {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lastModified, "lastModified");
    if (size < 0) {
      throw new IllegalArgumentException("size " + size + " is negative");
    }
  }
}
