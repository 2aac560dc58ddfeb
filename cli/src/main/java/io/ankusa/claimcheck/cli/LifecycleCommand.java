package io.ankusa.claimcheck.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Prints the bucket lifecycle configuration we recommend: stateless. */
@Command(
    name = "lifecycle",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description =
        "Print the S3 lifecycle configuration we recommend (aborts incomplete multipart"
            + " uploads after a day; expires nothing).")
final class LifecycleCommand implements Callable<Integer> {

  @Mixin Common common;
  @Spec CommandSpec spec;

  /** The rule set, as {@code aws s3api put-bucket-lifecycle-configuration} takes it. */
  static Map<String, Object> configuration() {
    Map<String, Object> rule = new LinkedHashMap<>();
    rule.put("ID", "claimcheck-abort-incomplete-multipart-uploads");
    rule.put("Status", "Enabled");
    rule.put("Filter", Map.of("Prefix", ""));
    rule.put("AbortIncompleteMultipartUpload", Map.of("DaysAfterInitiation", 1));
    return Map.of("Rules", List.of(rule));
  }

  @Override
  public Integer call() {
    String json = Json.write(configuration());
    if (common.json) {
      spec.commandLine().getOut().println(json);
      return ExitCodes.OK;
    }
    var out = spec.commandLine().getOut();
    out.println("Recommended lifecycle rule (one rule, nothing that expires data):");
    out.println("  - abort incomplete multipart uploads 1 day after they started (a crashed large");
    out.println("    check-in leaves parts that are billed but never become a pack).");
    out.println(
        "Never add an expiration rule: compacted topics keep records forever and producers");
    out.println("may set old timestamps; use 'claimcheck gc' to delete unreferenced packs.");
    out.println();
    out.println("aws s3api put-bucket-lifecycle-configuration --bucket BUCKET \\");
    out.println("  --lifecycle-configuration '" + json + "'");
    return ExitCodes.OK;
  }
}
