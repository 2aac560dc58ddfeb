package io.ankusa.claimcheck.collect;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * What one collector run found and did; immutable and thread-safe.
 *
 * @param status how the run ended
 * @param message why it aborted or what failed; when it went well, empty or a note on what was
 *     passed over (shard directories shared with other objects)
 * @param t0 the time noted before the end offsets
 * @param grace the grace used
 * @param dryRun whether deletion was off
 * @param topics the topics in scope
 * @param partitions how many partitions were read
 * @param scannedRecords records read (log start to the noted end offsets)
 * @param refs refs of the tenant found in keys, values and header values, at any offset (inside a
 *     Streams {@code Change}, a windowed key, a join wrapper as well as a whole field)
 * @param malformedRefs marked fields that start with the ref magic but are not an intact ref
 *     (damaged: they name no pack)
 * @param livePacks distinct packs of the tenant named by a record
 * @param listedPacks pack objects of the tenant found in the stores (a pack in two stores counts
 *     twice)
 * @param listedBytes their bytes
 * @param missingPacks live packs no store holds (their refs dangle)
 * @param youngPacks unreferenced packs kept because they were written within the grace
 * @param deletable unreferenced packs written before T0 minus the grace
 * @param deletableBytes their bytes
 * @param deleted the packs this run deleted
 * @param deleteFailures one line per store whose sweep stopped (a failed batch or check, or another
 *     run's sweep lock) and per sweep lock that could not be removed
 * @param elapsed how long each phase took: mark, list, sweep
 */
public record GcReport(
    Status status,
    String message,
    Instant t0,
    Duration grace,
    boolean dryRun,
    Set<String> topics,
    int partitions,
    long scannedRecords,
    long refs,
    long malformedRefs,
    long livePacks,
    long listedPacks,
    long listedBytes,
    long missingPacks,
    long youngPacks,
    List<StoredPack> deletable,
    long deletableBytes,
    List<StoredPack> deleted,
    List<String> deleteFailures,
    List<Duration> elapsed) {

  /** How a run ended. */
  public enum Status {
    /** Every phase completed (and, unless a dry run, every deletable pack was deleted). */
    OK,
    /** Nothing was deleted: a partition or a store could not be read, or the topics changed. */
    ABORTED,
    /** Some deletes failed (the rest were done); running again finishes the job. */
    PARTIAL
  }

  /** Copies the collections. */
  public GcReport {
    topics = Set.copyOf(topics);
    deletable = List.copyOf(deletable);
    deleted = List.copyOf(deleted);
    deleteFailures = List.copyOf(deleteFailures);
    elapsed = List.copyOf(elapsed);
  }

  /** The bytes this run deleted. */
  public long deletedBytes() {
    return deleted.stream().mapToLong(StoredPack::size).sum();
  }
}
