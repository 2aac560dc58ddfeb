package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.ref.Tenant;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What one collector run does; immutable and thread-safe. Start from {@link #of} and change fields
 * with the {@code with*} methods; every value is validated when set.
 *
 * @param tenant whose packs are collected
 * @param topics every topic whose whole name matches is in scope (it must match every topic that
 *     may hold the tenant's refs: changelog, repartition, dead-letter topics too)
 * @param grace only packs written before T0 minus this are deleted; at least {@link #MIN_GRACE}
 *     unless {@code force}
 * @param delete false for a dry run (the default): report, delete nothing
 * @param force accept a grace under {@link #MIN_GRACE}
 * @param readers how many partitions' consumers read at once
 * @param deleteBatch keys per batch delete (1..1000)
 * @param maxDeletes the most packs this run deletes (the rest wait for the next run)
 * @param stall a partition making no progress this long is given up (and nothing is deleted)
 * @param storeTimeout one listing page's or batch delete's timeout
 */
public record GcOptions(
    String tenant,
    Pattern topics,
    Duration grace,
    boolean delete,
    boolean force,
    int readers,
    int deleteBatch,
    long maxDeletes,
    Duration stall,
    Duration storeTimeout) {

  /** The default grace: the write deadline, delivery and transaction timeouts, and skew. */
  public static final Duration DEFAULT_GRACE = Duration.ofHours(1);

  /** The smallest grace accepted without {@code force}. */
  public static final Duration MIN_GRACE = Duration.ofMinutes(10);

  /** Validates; throws {@link IllegalArgumentException} naming the bad field. */
  public GcOptions {
    Tenant.of(tenant);
    Objects.requireNonNull(topics, "topics");
    Objects.requireNonNull(grace, "grace");
    Objects.requireNonNull(stall, "stall");
    Objects.requireNonNull(storeTimeout, "storeTimeout");
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace " + grace + " is negative");
    }
    if (grace.compareTo(MIN_GRACE) < 0 && !force) {
      throw new IllegalArgumentException(
          "grace "
              + grace
              + " is under the minimum of "
              + MIN_GRACE.toMinutes()
              + " minutes (a record may be produced that long after its pack"
              + " was written); force it only if no producer writes to these topics now");
    }
    if (readers < 1) {
      throw new IllegalArgumentException("readers " + readers + " is not positive");
    }
    if (deleteBatch < 1 || deleteBatch > 1000) {
      throw new IllegalArgumentException("deleteBatch " + deleteBatch + " is outside 1..1000");
    }
    if (maxDeletes < 0) {
      throw new IllegalArgumentException("maxDeletes " + maxDeletes + " is negative");
    }
    if (stall.isNegative()
        || stall.isZero()
        || storeTimeout.isNegative()
        || storeTimeout.isZero()) {
      throw new IllegalArgumentException("stall and storeTimeout must be positive");
    }
  }

  /** A dry run for {@code tenant} over the topics matching {@code topics}, with the defaults. */
  public static GcOptions of(String tenant, Pattern topics) {
    return new GcOptions(
        tenant,
        topics,
        DEFAULT_GRACE,
        false,
        false,
        4,
        1000,
        Long.MAX_VALUE,
        Duration.ofMinutes(2),
        Duration.ofSeconds(30));
  }

  public GcOptions withGrace(Duration grace, boolean force) {
    return new GcOptions(
        tenant,
        topics,
        grace,
        delete,
        force,
        readers,
        deleteBatch,
        maxDeletes,
        stall,
        storeTimeout);
  }

  public GcOptions withDelete(boolean delete) {
    return new GcOptions(
        tenant,
        topics,
        grace,
        delete,
        force,
        readers,
        deleteBatch,
        maxDeletes,
        stall,
        storeTimeout);
  }

  public GcOptions withReaders(int readers) {
    return new GcOptions(
        tenant,
        topics,
        grace,
        delete,
        force,
        readers,
        deleteBatch,
        maxDeletes,
        stall,
        storeTimeout);
  }

  public GcOptions withDeleteBatch(int deleteBatch, long maxDeletes) {
    return new GcOptions(
        tenant,
        topics,
        grace,
        delete,
        force,
        readers,
        deleteBatch,
        maxDeletes,
        stall,
        storeTimeout);
  }

  public GcOptions withTimeouts(Duration stall, Duration storeTimeout) {
    return new GcOptions(
        tenant,
        topics,
        grace,
        delete,
        force,
        readers,
        deleteBatch,
        maxDeletes,
        stall,
        storeTimeout);
  }
}
