package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.collect.GcReport.Status;
import io.ankusa.claimcheck.collect.LogScanner.ScanResult;
import io.ankusa.claimcheck.collect.LogScanner.Snapshot;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The collector's steps in order; thread-safe (a run keeps its state on its own stack).
 *
 * <p>Invariant: the sweep starts only after every abort condition was checked, and nothing before
 * it deletes; every abort returns a report with nothing deleted.
 */
final class MarkAndSweep implements Collector {

  private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How much later than its listed time a pack may have been written: S3 lists last-modified times
   * to the second, so a pack written just after T0 can be listed a fraction of a second before it;
   * the sweep takes every listed time as up to this much later.
   */
  private static final Duration STORE_TIME_RESOLUTION = Duration.ofSeconds(1);

  private final LogScanner scanner;
  private final List<ClaimStore> stores;
  private final Clock clock;
  private final Ticker ticker;

  public MarkAndSweep(LogScanner scanner, List<ClaimStore> stores, Clock clock, Ticker ticker) {
    this.scanner = scanner;
    this.stores = List.copyOf(stores);
    this.clock = clock;
    this.ticker = ticker;
  }

  @Override
  public GcReport run(GcOptions o, Progress progress) {
    Run run = new Run(o);
    run.t0 = clock.instant();
    long started = ticker.read();
    Snapshot snapshot;
    try {
      snapshot = scanner.snapshot(o.topics(), KAFKA_TIMEOUT);
    } catch (KafkaException e) {
      return run.abort("could not note the end offsets: " + e);
    }
    run.snapshot = snapshot;
    if (snapshot.end().isEmpty()) {
      return run.abort(
          "no topic matches "
              + o.topics().pattern()
              + ": refusing to treat every pack as unreferenced");
    }
    Map<String, Uuid> topicIds;
    try {
      topicIds = scanner.topicIds(snapshot.topics(), KAFKA_TIMEOUT);
    } catch (KafkaException e) {
      return run.abort("could not note the topic ids: " + e);
    }
    if (!topicIds.keySet().equals(snapshot.topics())) {
      return run.abort(
          "the topics matching "
              + o.topics().pattern()
              + " changed while their end"
              + " offsets were noted");
    }
    progress.endOffsetsNoted(snapshot.end().size(), snapshot.records());

    Set<Long> marked = ConcurrentHashMap.newKeySet();
    LongAdder refs = new LongAdder();
    LongAdder malformed = new LongAdder();
    Map<String, String> unknown = new ConcurrentHashMap<>();
    ScanResult read =
        scanner.read(
            snapshot,
            o.readers(),
            o.stall(),
            new RefVisitor() {
              @Override
              public void ref(
                  String topic, int partition, long offset, String field, ClaimRef ref) {
                if (ref.tenant().value().equals(o.tenant())) {
                  refs.increment();
                  marked.add(ref.packId().value());
                }
              }

              @Override
              public void malformed(
                  String topic, int partition, long offset, String field, MalformedRefException e) {
                malformed.increment();
                if (e.needsNewerReader()) {
                  unknown.putIfAbsent(topic + "-" + partition + "@" + offset, e.getMessage());
                }
              }
            });
    run.scanned = read.records();
    run.refs = refs.sum();
    run.malformed = malformed.sum();
    run.live = marked.size();
    run.elapsed.add(Duration.ofNanos(ticker.read() - started));
    if (!read.complete()) {
      Map.Entry<TopicPartition, String> first = read.incomplete().entrySet().iterator().next();
      return run.abort(
          read.incomplete().size()
              + " partition(s) could not be read to their end,"
              + " e.g. "
              + first.getKey()
              + ": "
              + first.getValue());
    }
    if (!unknown.isEmpty()) {
      Map.Entry<String, String> first = unknown.entrySet().iterator().next();
      return run.abort(
          unknown.size()
              + " ref(s) this library cannot decode may name packs, e.g. "
              + first.getKey()
              + ": "
              + first.getValue());
    }
    progress.marked(run.scanned, run.live);

    long listStart = ticker.read();
    List<StoredPack> packs = new ArrayList<>();
    Set<String> passedOver = new java.util.TreeSet<>();
    for (int i = 0; i < stores.size(); i++) {
      try {
        PackListing.Result listing =
            PackListing.list(stores.get(i), i, o.tenant(), o.storeTimeout());
        packs.addAll(listing.packs());
        for (String d : listing.foreignDirectories()) {
          passedOver.add("store " + i + " " + d);
        }
      } catch (StoreException e) {
        return run.abort(
            "store "
                + i
                + " ("
                + stores.get(i).describe()
                + ") could not be listed: "
                + e.getMessage());
      }
    }
    run.elapsed.add(Duration.ofNanos(ticker.read() - listStart));
    progress.listed(packs.size());

    try {
      Set<TopicPartition> now = scanner.partitions(o.topics(), KAFKA_TIMEOUT);
      if (!now.equals(snapshot.end().keySet())) {
        return run.abort(
            "the topics matching "
                + o.topics().pattern()
                + " changed during the run"
                + " ("
                + snapshot.end().size()
                + " partitions before, "
                + now.size()
                + " now)");
      }
      Map<String, Uuid> idsNow = scanner.topicIds(snapshot.topics(), KAFKA_TIMEOUT);
      if (!idsNow.equals(topicIds)) {
        String which =
            snapshot.topics().stream()
                .filter(t -> !java.util.Objects.equals(topicIds.get(t), idsNow.get(t)))
                .findFirst()
                .orElse("?");
        return run.abort(
            "the topics matching "
                + o.topics().pattern()
                + " changed during the run"
                + " (topic "
                + which
                + " was deleted and re-created: its id changed)");
      }
    } catch (KafkaException e) {
      return run.abort("could not check the topics again: " + e);
    }

    Instant cutoff = run.t0.minus(o.grace());
    Set<Long> stored = new java.util.HashSet<>();
    List<StoredPack> deletable = new ArrayList<>();
    for (StoredPack p : packs) {
      stored.add(p.packId().value());
      run.listedBytes += p.size();
      if (marked.contains(p.packId().value())) {
        continue;
      }
      if (p.lastModified().plus(STORE_TIME_RESOLUTION).isBefore(cutoff)) {
        deletable.add(p);
      } else {
        run.young++;
      }
    }
    run.listed = packs.size();
    run.missing = marked.stream().filter(id -> !stored.contains(id)).count();
    run.deletable = deletable;

    String note =
        passedOver.isEmpty()
            ? ""
            : "passed over "
                + passedOver.size()
                + " shard director(ies) holding objects that are not this tenant's packs (nothing in them"
                + " is deleted), e.g. "
                + passedOver.iterator().next();
    if (!o.delete()) {
      return run.report(Status.OK, note);
    }
    long sweepStart = ticker.read();
    Sweeper sweeper =
        new Sweeper(stores, o, progress, cutoff, STORE_TIME_RESOLUTION, clock, ticker);
    sweeper.sweep(deletable);
    run.elapsed.add(Duration.ofNanos(ticker.read() - sweepStart));
    run.deleted = sweeper.deleted();
    return sweeper.failures().isEmpty()
        ? run.report(Status.OK, note)
        : run.report(
            Status.PARTIAL,
            sweeper.failures().size() + " store sweep(s) stopped: " + sweeper.failures().get(0),
            sweeper.failures());
  }

  /** One run's tallies. */
  private static final class Run {
    final GcOptions o;
    Instant t0;
    Snapshot snapshot;
    long scanned;
    long refs;
    long malformed;
    long live;
    long listed;
    long listedBytes;
    long missing;
    long young;
    List<StoredPack> deletable = List.of();
    List<StoredPack> deleted = List.of();
    final List<Duration> elapsed = new ArrayList<>();

    Run(GcOptions o) {
      this.o = o;
    }

    GcReport abort(String why) {
      deletable = List.of();
      return report(Status.ABORTED, "nothing deleted: " + why);
    }

    GcReport report(Status status, String message) {
      return report(status, message, List.of());
    }

    GcReport report(Status status, String message, List<String> failures) {
      long deletableBytes = deletable.stream().mapToLong(StoredPack::size).sum();
      return new GcReport(
          status,
          message,
          t0,
          o.grace(),
          !o.delete(),
          snapshot == null ? Set.of() : snapshot.topics(),
          snapshot == null ? 0 : snapshot.end().size(),
          scanned,
          refs,
          malformed,
          live,
          listed,
          listedBytes,
          missing,
          young,
          deletable,
          deletableBytes,
          deleted,
          failures,
          elapsed);
    }
  }
}
