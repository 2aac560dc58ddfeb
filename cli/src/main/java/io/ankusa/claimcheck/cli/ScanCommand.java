package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.collect.Collector;
import io.ankusa.claimcheck.collect.LogScan;
import io.ankusa.claimcheck.collect.RefVisitor;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.time.Ticker;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code scan}: reads topics from their log start and redeems every ref found, counting what
 * redeems, dangles, is corrupt or could not be read; one run per instance.
 *
 * <p>A ref is found anywhere in a key, a value or a header value (the collector's conservative
 * mark). Memory is bounded whatever the topics hold: counts, the first {@code --max-problems}
 * problem records, and the outcomes of the last {@code --remembered-claims} claims.
 */
@Command(
    name = "scan",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description = "Read topics from their log start and redeem every ref: the health check.")
final class ScanCommand implements Callable<Integer> {

  private static final int IN_FLIGHT = 64;

  @Mixin Common common;
  @Spec CommandSpec spec;

  @Option(
      names = "--topics",
      required = true,
      paramLabel = "REGEX",
      description = "Every topic whose whole name matches is read.")
  Pattern topics;

  @Option(names = "--readers", defaultValue = "4", description = "Partitions read at once.")
  int readers;

  @Option(
      names = "--max-problems",
      defaultValue = "100",
      paramLabel = "N",
      description = "List at most the first N problem records (all are counted); default 100.")
  int maxProblems;

  @Option(
      names = "--remembered-claims",
      defaultValue = "100000",
      paramLabel = "N",
      description =
          "Remember the outcomes of the last N claims, so a claim many records name is"
              + " redeemed once while remembered; default 100000.")
  int rememberedClaims;

  @Override
  public Integer call() throws InterruptedException {
    if (maxProblems < 0 || rememberedClaims < 0) {
      throw new CliException(
          ExitCodes.USAGE, "--max-problems and --remembered-claims must not be negative");
    }
    CliConfig config = common.load();
    ScanTally tally = new ScanTally(maxProblems, rememberedClaims);
    Semaphore inFlight = new Semaphore(IN_FLIGHT);
    LogScan read;
    try (ClaimCheck cc = ClaimCheck.open(config.all())) {
      Duration deadline = cc.config().readDeadline();
      RefVisitor visitor =
          new RefVisitor() {
            @Override
            public void ref(String topic, int partition, long offset, String field, ClaimRef ref) {
              tally.count("refs");
              boolean[] started = {false};
              CompletableFuture<String> outcome = tally.outcome(ref, started);
              if (started[0]) {
                inFlight.acquireUninterruptibly(); // bounds the redeems this scan has in flight
                cc.redeem(ref, cc.ticker().read() + deadline.toNanos())
                    .handle((bytes, failure) -> classify(failure))
                    .whenComplete(
                        (o, f) -> {
                          outcome.complete(
                              o == null ? "unreadable" : o); // runs the tallies waiting
                          inFlight.release();
                        });
              }
              outcome.thenAccept(
                  o -> {
                    tally.count(o);
                    if (!o.equals("redeemed")) {
                      tally.problem(
                          problem(
                              topic,
                              partition,
                              offset,
                              field,
                              o,
                              ref.claimId().toString(),
                              ref.tenant().value()));
                    }
                  });
            }

            @Override
            public void malformed(
                String topic, int partition, long offset, String field, MalformedRefException e) {
              tally.count("malformed");
              tally.problem(
                  problem(topic, partition, offset, field, "malformed", e.getMessage(), null));
            }
          };
      read =
          Collector.scan(
              config.all(), topics, readers, Duration.ofMinutes(2), Ticker.system(), visitor);
      // A tally waiting on a redeem runs before its permit is released: holding every permit
      // means every tally ran.
      inFlight.acquireUninterruptibly(IN_FLIGHT);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("topics", new ArrayList<>(read.topics()));
    m.put("partitions", read.partitions());
    m.put("records", read.records());
    m.put("complete", read.complete());
    m.putAll(tally.counts());
    m.put("redeems", tally.redeems());
    m.put(
        "incomplete_partitions",
        read.incomplete().entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList());
    m.put("problem_records", tally.problemCount());
    List<Map<String, Object>> shown = tally.problems();
    m.put("problems", shown);
    PrintWriter out = spec.commandLine().getOut();
    if (common.json) {
      out.println(Json.write(m));
    } else {
      m.forEach(
          (k, v) -> {
            if (!k.equals("problems")) {
              out.printf("%-22s %s%n", k, v);
            }
          });
      shown.forEach(
          p ->
              out.println(
                  p.get("outcome")
                      + " "
                      + p.get("topic")
                      + "-"
                      + p.get("partition")
                      + "@"
                      + p.get("offset")
                      + " "
                      + p.get("field")
                      + " "
                      + p.get("detail")));
      if (tally.problemCount() > shown.size()) {
        out.println(
            "... "
                + (tally.problemCount() - shown.size())
                + " more problem records (see --max-problems)");
      }
    }
    if (!read.complete()) {
      spec.commandLine()
          .getErr()
          .println(
              "claimcheck: scan: "
                  + read.incomplete().size()
                  + " partition(s) could not be read to their end");
      return ExitCodes.INCOMPLETE;
    }
    long bad = tally.get("refs") - tally.get("redeemed") + tally.get("malformed");
    return bad == 0 ? ExitCodes.OK : ExitCodes.UNHEALTHY;
  }

  private static String classify(Throwable failure) {
    if (failure == null) {
      return "redeemed";
    }
    Throwable t = failure;
    while (t.getCause() != null && !(t instanceof ClaimCheckFailure)) {
      t = t.getCause();
    }
    if (!(t instanceof ClaimCheckFailure f)) {
      return "unreadable";
    }
    return switch (f.reason()) {
      case NOT_FOUND -> "dangling";
      case CORRUPT -> "corrupt";
      case REFUSED -> "refused";
      case UNAVAILABLE -> "unreadable";
    };
  }

  private static Map<String, Object> problem(
      String topic,
      int partition,
      long offset,
      String field,
      String outcome,
      String detail,
      String tenant) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("outcome", outcome);
    p.put("topic", topic);
    p.put("partition", partition);
    p.put("offset", offset);
    p.put("field", field);
    p.put("tenant", tenant);
    p.put("detail", detail);
    return p;
  }
}
