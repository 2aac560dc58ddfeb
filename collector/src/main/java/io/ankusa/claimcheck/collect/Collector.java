package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The garbage collector of a tenant's packs: a mark and sweep over the in-scope topics and every
 * store; implementations are thread-safe, but runs of one tenant must not overlap.
 *
 * <p>A run notes T0 and every in-scope partition's end offset; reads each partition from its log
 * start to that offset (uncommitted records included) and marks every pack of the tenant a key or
 * value ref names; lists the tenant's packs in every store at both key layouts; and deletes, in
 * bounded batches, only the unmarked packs a store says were written before T0 minus the grace (a
 * listed time taken as up to a second later: S3 lists times to the second; a reused key pack is
 * written again, so it counts as written when it was reused). It deletes nothing when a partition
 * could not be read to its end, a store could not be listed, no topic matched, a ref of an unknown
 * version was found, or the matched partitions changed during the run. Deleting is idempotent, so
 * an interrupted run is finished by running again.
 */
public interface Collector {

  /**
   * Runs once with {@code options} (a dry run unless {@link GcOptions#delete()}); blocks until
   * done. Never throws for a store or Kafka failure: the report says what happened.
   */
  GcReport run(GcOptions options, Progress progress);

  /**
   * Returns a collector reading Kafka with client settings {@code kafkaConfig} ({@code
   * bootstrap.servers} and security) over {@code stores} (index = store index; the caller closes
   * them), taking T0 from {@code clock} and timing stalls on {@code ticker}.
   */
  static Collector create(
      Map<String, ?> kafkaConfig, List<ClaimStore> stores, Clock clock, Ticker ticker) {
    return new MarkAndSweep(new LogScanner(kafkaConfig, ticker), stores, clock, ticker);
  }

  /**
   * Reads every partition of the topics whose whole name matches {@code topics} from its log start
   * to the end offset noted now, as a run reads them (uncommitted records included, up to {@code
   * readers} consumers at once), and hands every ref of a key, value or header to {@code visitor};
   * blocks until done. A partition without progress for {@code stall} (on {@code ticker}) is given
   * up and reported in {@link LogScan#incomplete()}, never taken as read; an interrupt stops the
   * read (the flag is restored). Kafka client settings come from {@code kafkaConfig} ({@code
   * claimcheck.*} keys are ignored); Kafka metadata calls time out after 60 s.
   */
  static LogScan scan(
      Map<String, ?> kafkaConfig,
      Pattern topics,
      int readers,
      Duration stall,
      Ticker ticker,
      RefVisitor visitor) {
    return LogScanner.scan(kafkaConfig, topics, readers, stall, ticker, visitor);
  }

  /**
   * Lists the packs {@code store} (store index {@code index}) holds of {@code tenant} (every tenant
   * when null) at both key layouts, as a run lists them, waiting at most {@code pageTimeout} per
   * page; a shard directory shared with other objects is passed over.
   *
   * @throws StoreException when a page could not be listed
   */
  static List<StoredPack> packs(ClaimStore store, int index, String tenant, Duration pageTimeout) {
    return PackListing.list(store, index, tenant, pageTimeout).packs();
  }
}
