package io.ankusa.claimcheck.collect;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * What one collector run found and did; immutable and thread-safe. Only a run makes one (its
 * constructor is not API), so a field can be added without breaking a caller.
 */
public final class GcReport {

  /** How a run ended. */
  public enum Status {
    /** Every phase completed (and, unless a dry run, every deletable pack was deleted). */
    OK,
    /** Nothing was deleted: a partition or a store could not be read, or the topics changed. */
    ABORTED,
    /** Some deletes failed (the rest were done); running again finishes the job. */
    PARTIAL
  }

  private final Status status;
  private final String message;
  private final Instant t0;
  private final Duration grace;
  private final boolean dryRun;
  private final Set<String> topics;
  private final int partitions;
  private final long scannedRecords;
  private final long refs;
  private final long malformedRefs;
  private final long livePacks;
  private final long listedPacks;
  private final long listedBytes;
  private final long missingPacks;
  private final long youngPacks;
  private final List<StoredPack> deletable;
  private final long deletableBytes;
  private final List<StoredPack> deleted;
  private final List<String> deleteFailures;
  private final List<Duration> elapsed;

  /** Copies the collections. */
  GcReport(
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
    this.status = status;
    this.message = message;
    this.t0 = t0;
    this.grace = grace;
    this.dryRun = dryRun;
    this.topics = Set.copyOf(topics);
    this.partitions = partitions;
    this.scannedRecords = scannedRecords;
    this.refs = refs;
    this.malformedRefs = malformedRefs;
    this.livePacks = livePacks;
    this.listedPacks = listedPacks;
    this.listedBytes = listedBytes;
    this.missingPacks = missingPacks;
    this.youngPacks = youngPacks;
    this.deletable = List.copyOf(deletable);
    this.deletableBytes = deletableBytes;
    this.deleted = List.copyOf(deleted);
    this.deleteFailures = List.copyOf(deleteFailures);
    this.elapsed = List.copyOf(elapsed);
  }

  /** How the run ended. */
  public Status status() {
    return status;
  }

  /**
   * Why it aborted or what failed; when it went well, empty or a note on what was passed over
   * (shard directories shared with other objects).
   */
  public String message() {
    return message;
  }

  /** The time noted before the end offsets. */
  public Instant t0() {
    return t0;
  }

  /** The grace used. */
  public Duration grace() {
    return grace;
  }

  /** Whether deletion was off. */
  public boolean dryRun() {
    return dryRun;
  }

  /** The topics in scope. */
  public Set<String> topics() {
    return topics;
  }

  /** How many partitions were read. */
  public int partitions() {
    return partitions;
  }

  /** Records read (log start to the noted end offsets). */
  public long scannedRecords() {
    return scannedRecords;
  }

  /**
   * Refs of the tenant found in keys, values and header values, at any offset (inside a Streams
   * {@code Change}, a windowed key, a join wrapper as well as a whole field).
   */
  public long refs() {
    return refs;
  }

  /**
   * Marked fields that start with the ref magic but are not an intact ref (damaged: they name no
   * pack).
   */
  public long malformedRefs() {
    return malformedRefs;
  }

  /** Distinct packs of the tenant named by a record. */
  public long livePacks() {
    return livePacks;
  }

  /** Pack objects of the tenant found in the stores (a pack in two stores counts twice). */
  public long listedPacks() {
    return listedPacks;
  }

  /** The bytes of {@link #listedPacks}. */
  public long listedBytes() {
    return listedBytes;
  }

  /** Live packs no store holds (their refs dangle). */
  public long missingPacks() {
    return missingPacks;
  }

  /** Unreferenced packs kept because they were written within the grace. */
  public long youngPacks() {
    return youngPacks;
  }

  /** Unreferenced packs written before T0 minus the grace. */
  public List<StoredPack> deletable() {
    return deletable;
  }

  /** The bytes of {@link #deletable}. */
  public long deletableBytes() {
    return deletableBytes;
  }

  /** The packs this run deleted. */
  public List<StoredPack> deleted() {
    return deleted;
  }

  /**
   * One line per store whose sweep stopped (a failed batch or check, or another run's sweep lock)
   * and per sweep lock that could not be removed.
   */
  public List<String> deleteFailures() {
    return deleteFailures;
  }

  /** How long each phase took: mark, list, sweep. */
  public List<Duration> elapsed() {
    return elapsed;
  }

  /** The bytes this run deleted. */
  public long deletedBytes() {
    return deleted.stream().mapToLong(StoredPack::size).sum();
  }

  private List<Object> fields() {
    return Arrays.asList(
        status,
        message,
        t0,
        grace,
        dryRun,
        topics,
        partitions,
        scannedRecords,
        refs,
        malformedRefs,
        livePacks,
        listedPacks,
        listedBytes,
        missingPacks,
        youngPacks,
        deletable,
        deletableBytes,
        deleted,
        deleteFailures,
        elapsed);
  }

  /** Equal when every field is. */
  @Override
  public boolean equals(Object o) {
    return o instanceof GcReport r && fields().equals(r.fields());
  }

  @Override
  public int hashCode() {
    return fields().hashCode();
  }

  /** Every field, as a record would print them. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("GcReport[");
    List<Object> values = fields();
    for (int i = 0; i < NAMES.size(); i++) {
      b.append(i == 0 ? "" : ", ").append(NAMES.get(i)).append('=').append(values.get(i));
    }
    return b.append(']').toString();
  }

  private static final List<String> NAMES =
      List.of(
          "status",
          "message",
          "t0",
          "grace",
          "dryRun",
          "topics",
          "partitions",
          "scannedRecords",
          "refs",
          "malformedRefs",
          "livePacks",
          "listedPacks",
          "listedBytes",
          "missingPacks",
          "youngPacks",
          "deletable",
          "deletableBytes",
          "deleted",
          "deleteFailures",
          "elapsed");
}
