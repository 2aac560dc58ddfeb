package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.store.file.FileStoreProvider;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code store init}: makes each {@code file://} store of a config (or of the URIs given) a store,
 * so writers and readers may use it; one run per instance.
 *
 * <p>A missing root whose parent exists is created, an empty directory is marked, a root already
 * marked is left as it is; a non-empty directory without the marker, a file or a missing parent is
 * refused. Other schemes need no initialization and are reported as such.
 */
@Command(
    name = "init",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description =
        "Create the file:// stores of --config FILE (or the URIs given): a missing root "
            + "whose parent exists is created, an empty directory is marked as a store; run it once, "
            + "with the volume mounted. Refuses a non-empty directory without the store's marker.")
final class StoreInitCommand implements Callable<Integer> {

  @Mixin Common common;
  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "URI",
      arity = "0..*",
      description = "Store URIs (file:///path) instead of the stores of --config.")
  List<String> uris = new ArrayList<>();

  @Override
  public Integer call() {
    List<StoreSpec> stores = stores();
    List<Map<String, Object>> rows = new ArrayList<>();
    boolean failed = false;
    for (StoreSpec s : stores) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("store", s.index());
      row.put("location", s.uri().toString());
      if (!s.scheme().equals("file")) {
        row.put("result", "skipped: a " + s.scheme() + " store needs no initialization");
      } else {
        try {
          row.put("result", FileStoreProvider.initialize(s.uri()) ? "created" : "already a store");
        } catch (IllegalStateException e) {
          row.put("result", "refused: " + e.getMessage());
          failed = true;
        }
      }
      rows.add(row);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (common.json) {
      out.println(Json.write(Map.of("stores", rows)));
    } else {
      for (Map<String, Object> r : rows) {
        out.printf("store %s %s: %s%n", r.get("store"), r.get("location"), r.get("result"));
      }
    }
    return failed ? ExitCodes.ERROR : ExitCodes.OK;
  }

  private List<StoreSpec> stores() {
    if (!uris.isEmpty() && common.config != null) {
      throw new CliException(ExitCodes.USAGE, "give either --config FILE or store URIs, not both");
    }
    if (uris.isEmpty()) {
      if (common.config == null) {
        throw new CliException(ExitCodes.USAGE, "give --config FILE or the store URIs to create");
      }
      return CliConfig.load(common.config, false).claimCheck().stores();
    }
    try {
      return new ClaimCheckConfig(Map.of(ClaimCheckConfig.STORES, String.join(",", uris))).stores();
    } catch (ConfigException e) {
      throw new CliException(ExitCodes.CONFIG, "bad store URI: " + e.getMessage());
    }
  }
}
