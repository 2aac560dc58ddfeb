package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.collect.Collector;
import io.ankusa.claimcheck.collect.LogScan;
import io.ankusa.claimcheck.collect.RefVisitor;
import io.ankusa.claimcheck.collect.StoredPack;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code du}: packs and bytes per store and tenant (and how many are live); one run per instance.
 */
@Command(
    name = "du",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description = "Packs and bytes per store and tenant; with --topics, how many are live.")
final class DuCommand implements Callable<Integer> {

  @Mixin Common common;
  @Spec CommandSpec spec;

  @Option(names = "--tenant", description = "Only this tenant (default: every tenant).")
  String tenant;

  @Option(
      names = "--topics",
      paramLabel = "REGEX",
      description = "Also read these topics and count the live packs (named by a record).")
  Pattern topics;

  @Override
  public Integer call() {
    CliConfig config = common.load();
    Set<String> live = ConcurrentHashMap.newKeySet();
    boolean complete = true;
    if (topics != null) {
      LogScan r =
          Collector.scan(
              config.all(),
              topics,
              4,
              Duration.ofMinutes(2),
              Ticker.system(),
              new RefVisitor() {
                @Override
                public void ref(
                    String topic, int partition, long offset, String field, ClaimRef ref) {
                  live.add(ref.tenant().value() + "/" + ref.packId().hex());
                }
              });
      complete = r.complete();
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    List<ClaimStore> stores = config.openStores();
    try {
      for (int i = 0; i < stores.size(); i++) {
        List<StoredPack> packs;
        try {
          packs = Collector.packs(stores.get(i), i, tenant, Duration.ofSeconds(30));
        } catch (StoreException e) {
          throw new CliException(
              ExitCodes.INCOMPLETE,
              "store "
                  + i
                  + " ("
                  + stores.get(i).describe()
                  + ") could not be listed: "
                  + e.getMessage());
        }
        Map<String, long[]> byTenant = new TreeMap<>();
        for (StoredPack p : packs) {
          long[] c = byTenant.computeIfAbsent(p.tenant(), k -> new long[3]);
          c[0]++;
          c[1] += p.size();
          if (live.contains(p.tenant() + "/" + p.packId().hex())) {
            c[2]++;
          }
        }
        for (Map.Entry<String, long[]> e : byTenant.entrySet()) {
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("store", i);
          row.put("location", stores.get(i).describe());
          row.put("tenant", e.getKey());
          row.put("packs", e.getValue()[0]);
          row.put("bytes", e.getValue()[1]);
          row.put("live_packs", topics == null ? null : e.getValue()[2]);
          rows.add(row);
        }
      }
    } finally {
      CliConfig.close(stores);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (common.json) {
      out.println(Json.write(Map.of("stores", rows, "topics_complete", complete)));
    } else {
      out.printf(
          "%-5s %-20s %12s %16s %12s  %s%n",
          "store", "tenant", "packs", "bytes", "live", "location");
      for (Map<String, Object> r : rows) {
        out.printf(
            "%-5s %-20s %12s %16s %12s  %s%n",
            r.get("store"),
            r.get("tenant"),
            r.get("packs"),
            r.get("bytes"),
            r.get("live_packs") == null ? "-" : r.get("live_packs"),
            r.get("location"));
      }
    }
    if (!complete) {
      spec.commandLine()
          .getErr()
          .println("claimcheck: du: some partitions could not be read; live counts are low");
      return ExitCodes.INCOMPLETE;
    }
    return ExitCodes.OK;
  }
}
