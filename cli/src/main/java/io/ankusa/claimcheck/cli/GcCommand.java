package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.collect.Collector;
import io.ankusa.claimcheck.collect.GcOptions;
import io.ankusa.claimcheck.collect.GcReport;
import io.ankusa.claimcheck.collect.Progress;
import io.ankusa.claimcheck.collect.StoredPack;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.time.Ticker;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code gc}: wires the core collector to the command line; one run per instance. */
@Command(
    name = "gc",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description = {
      "Collect a tenant's unreferenced packs (mark and sweep). A dry run unless" + " --delete.",
      "Every topic that may hold the tenant's refs must match --topics: Streams changelog and"
          + " repartition topics, dead-letter topics, and topics mirrored from other clusters."
    })
final class GcCommand implements Callable<Integer> {

  /** The clock T0 is read on; tests set it to run "later" instead of sleeping through a grace. */
  static volatile Clock clock = Clock.systemUTC();

  @Mixin Common common;
  @Spec CommandSpec spec;

  @Option(names = "--tenant", description = "Tenant to collect (default: claimcheck.tenant).")
  String tenant;

  @Option(
      names = "--topics",
      required = true,
      paramLabel = "REGEX",
      description = "Every topic whose whole name matches is read.")
  Pattern topics;

  @Option(
      names = "--grace",
      paramLabel = "DURATION",
      converter = Common.DurationConverter.class,
      defaultValue = "1h",
      description =
          "Keep packs written within this of T0 (default 1h," + " at least 10m without --force).")
  Duration grace;

  @Option(names = "--delete", description = "Delete (default: dry run, delete nothing).")
  boolean delete;

  @Option(names = "--force", description = "Accept a grace under 10 minutes.")
  boolean force;

  @Option(names = "--readers", defaultValue = "4", description = "Partitions read at once.")
  int readers;

  @Option(
      names = "--batch",
      defaultValue = "1000",
      description = "Keys per batch delete (<= 1000).")
  int batch;

  @Option(
      names = "--max-deletes",
      defaultValue = "" + Long.MAX_VALUE,
      description = "Delete at most this many packs this run (the rest next run).")
  long maxDeletes;

  @Option(names = "--verbose", description = "Progress on stderr.")
  boolean verbose;

  @Override
  public Integer call() {
    CliConfig config = common.load();
    String t = tenant == null ? config.claimCheck().tenant() : tenant;
    GcOptions options =
        GcOptions.of(t, topics)
            .withGrace(grace, force)
            .withDelete(delete)
            .withReaders(readers)
            .withDeleteBatch(batch, maxDeletes);
    List<ClaimStore> stores = config.openStores();
    GcReport report;
    try {
      report =
          Collector.create(config.all(), stores, clock, Ticker.system())
              .run(options, verbose ? progress(spec.commandLine().getErr()) : Progress.NONE);
    } finally {
      CliConfig.close(stores);
    }
    PrintWriter out = spec.commandLine().getOut();
    Map<String, Object> m = toMap(t, report);
    if (common.json) {
      out.println(Json.write(m));
    } else {
      m.forEach(
          (k, v) -> {
            if (!(v instanceof List<?>)) {
              out.printf("%-16s %s%n", k, v);
            }
          });
      for (StoredPack p : report.dryRun() ? report.deletable() : report.deleted()) {
        out.printf(
            "%s store %d %s %d bytes %s%n",
            report.dryRun() ? "would delete" : "deleted",
            p.store(),
            p.key(),
            p.size(),
            p.lastModified());
      }
    }
    if (report.status() != GcReport.Status.OK) {
      spec.commandLine().getErr().println("claimcheck: gc: " + report.message());
    }
    return switch (report.status()) {
      case OK -> ExitCodes.OK;
      case ABORTED -> ExitCodes.INCOMPLETE;
      case PARTIAL -> ExitCodes.PARTIAL;
    };
  }

  static Map<String, Object> toMap(String tenant, GcReport r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", r.status().name().toLowerCase(java.util.Locale.ROOT));
    m.put("message", r.message());
    m.put("tenant", tenant);
    m.put("dry_run", r.dryRun());
    m.put("t0", String.valueOf(r.t0()));
    m.put("grace_seconds", r.grace().toSeconds());
    m.put("topics", new ArrayList<>(r.topics()));
    m.put("partitions", r.partitions());
    m.put("scanned_records", r.scannedRecords());
    m.put("refs", r.refs());
    m.put("malformed_refs", r.malformedRefs());
    m.put("live_packs", r.livePacks());
    m.put("listed_packs", r.listedPacks());
    m.put("listed_bytes", r.listedBytes());
    m.put("missing_packs", r.missingPacks());
    m.put("young_packs", r.youngPacks());
    m.put("deletable_packs", r.deletable().size());
    m.put("deletable_bytes", r.deletableBytes());
    m.put("deleted_packs", r.deleted().size());
    m.put("deleted_bytes", r.deletedBytes());
    m.put("delete_failures", r.deleteFailures());
    List<Long> ms = r.elapsed().stream().map(Duration::toMillis).toList();
    m.put("elapsed_ms", ms);
    m.put("deletable", packs(r.deletable()));
    m.put("deleted", packs(r.deleted()));
    return m;
  }

  private static List<Map<String, Object>> packs(List<StoredPack> packs) {
    List<Map<String, Object>> out = new ArrayList<>(packs.size());
    for (StoredPack p : packs) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("store", p.store());
      m.put("key", p.key());
      m.put("size", p.size());
      m.put("last_modified", String.valueOf(p.lastModified()));
      out.add(m);
    }
    return out;
  }

  private static Progress progress(PrintWriter err) {
    return new Progress() {
      @Override
      public void endOffsetsNoted(int partitions, long records) {
        err.println("end offsets noted: " + partitions + " partitions, ~" + records + " records");
      }

      @Override
      public void marked(long records, long livePacks) {
        err.println("marked: " + records + " records, " + livePacks + " live packs");
      }

      @Override
      public void listed(long packs) {
        err.println("listed: " + packs + " packs");
      }

      @Override
      public void deleted(int store, int count) {
        err.println("deleted " + count + " from store " + store);
      }
    };
  }
}
