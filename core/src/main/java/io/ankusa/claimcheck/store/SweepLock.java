package io.ankusa.claimcheck.store;

import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import java.time.Duration;
import java.time.Instant;

/**
 * The per-tenant sweep lock, the one protocol the writer (reusing a key pack) and the collector
 * (module {@code claimcheck-collector}, deleting packs) share over a store: where the lock lives in
 * each store and how long it holds; stateless and thread-safe. Not for application code: a plug-in
 * store only has to store its key like any other ({@code ClaimStoreContract} checks it).
 *
 * <p>While a collection deletes a batch of a tenant's packs in a store, the object {@code
 * SWEEPING/<tenant>} exists there. No pack key can collide with it: tenant names are {@code
 * [a-z0-9._-]}, so the upper-case top level is never a tenant directory, a tenant's listing ({@code
 * <tenant>/}) never returns it and an all-tenant listing counts it as another object.
 *
 * <p>The protocol that keeps a reused content-addressed key pack: the sweeper (1) takes the lock
 * with put-if-absent, (2) confirms each candidate of the batch by a stat (still there, still last
 * modified before the cutoff), (3) deletes the confirmed ones, (4) removes the lock. A writer that
 * reused pack P rewrites P (W), then looks for the lock (K), then stats P (H), and repeats while it
 * finds a held lock or no P. A loss would need the sweep's confirm C before W (else C sees P as
 * just written and keeps it) and its delete D after W; then C &lt; W &lt; K, so K finds the lock
 * (taken before C) unless it comes after its removal, which is after D: either the writer waits for
 * the removal and rewrites P after D, or H comes after D and finds P gone and rewrites it. A lock
 * is held for at most {@link #LEASE} by its last-modified time: a crashed sweeper's lock expires
 * then, and a live sweeper never starts a delete that could end later than {@link #LEASE} minus
 * {@link #MARGIN} after it took the lock (the margin covers clock skew between the sweeper, the
 * store and the writers).
 *
 * <p>A stale lock is taken over by a delete and a put-if-absent, so of two collections taking one
 * over at once the later put finds the winner's lock and stops. Stores offer no compare-and-delete,
 * so one interleaving is left: a collection that saw the stale lock deletes the lock another has
 * just put in its place. That needs a crashed collection's lock and two collections of one tenant
 * starting within the same moment: run one collection per tenant at a time.
 */
public final class SweepLock {

  /** The top level of the lock objects: upper case, so never a tenant's directory. */
  private static final String PREFIX = "SWEEPING/";

  /** How long a lock is held at most, from its last-modified time. */
  public static final Duration LEASE = Duration.ofMinutes(5);

  /** How much of the lease a sweeper leaves unused, for clock skew. */
  public static final Duration MARGIN = Duration.ofMinutes(1);

  private SweepLock() {}

  /** The key of {@code tenant}'s lock (relative to the store, like every key). */
  public static String key(String tenant) {
    return PREFIX + tenant;
  }

  /** Whether {@code lock}, stat'ed or listed, is still held at {@code now}. */
  public static boolean held(StoredObject lock, Instant now) {
    return lock.lastModified().plus(LEASE).isAfter(now);
  }
}
