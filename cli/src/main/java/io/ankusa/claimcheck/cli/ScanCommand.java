package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.time.Ticker;
import io.ankusa.claimcheck.internal.collect.LogScanner;
import io.ankusa.claimcheck.internal.collect.RefVisitor;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code scan}: reads topics from their log start and redeems every ref found, counting what
 * redeems, dangles, is corrupt or could not be read; one run per instance.
 */
@Command(name = "scan", mixinStandardHelpOptions = true, footer = ExitCodes.FOOTER,
    description = "Read topics from their log start and redeem every ref: the health check.")
final class ScanCommand implements Callable<Integer> {

  private static final int IN_FLIGHT = 64;

  @Mixin Common common;
  @Spec CommandSpec spec;

  @Option(names = "--topics", required = true, paramLabel = "REGEX",
      description = "Every topic whose whole name matches is read.")
  Pattern topics;

  @Option(names = "--readers", defaultValue = "4", description = "Partitions read at once.")
  int readers;

  @Option(names = "--max-problems", defaultValue = "100",
      description = "List at most this many problem records.")
  int maxProblems;

  @Override
  public Integer call() throws InterruptedException {
    CliConfig config = common.load();
    Map<String, LongAdder> counts = new LinkedHashMap<>();
    for (String k : List.of("refs", "redeemed", "dangling", "corrupt", "unreadable", "refused",
        "malformed")) {
      counts.put(k, new LongAdder());
    }
    List<Map<String, Object>> problems = Collections.synchronizedList(new ArrayList<>());
    Semaphore inFlight = new Semaphore(IN_FLIGHT);
    Map<ClaimRef, CompletableFuture<String>> outcomes = new ConcurrentHashMap<>();
    java.util.Queue<CompletableFuture<Void>> tallies = new java.util.concurrent.ConcurrentLinkedQueue<>();
    LogScanner.ScanResult read;
    LogScanner.Snapshot snapshot;
    try (ClaimCheck cc = ClaimCheck.open(config.all())) {
      LogScanner scanner = new LogScanner(config.all(), Ticker.system());
      snapshot = scanner.snapshot(topics, Duration.ofSeconds(60));
      Duration deadline = cc.config().readDeadline();
      read = scanner.read(snapshot, readers, Duration.ofMinutes(2), new RefVisitor() {
        @Override
        public void ref(String topic, int partition, long offset, boolean isKey, ClaimRef ref) {
          counts.get("refs").increment();
          CompletableFuture<String> outcome = outcomes.get(ref);
          if (outcome == null) {
            CompletableFuture<String> mine = new CompletableFuture<>();
            outcome = outcomes.putIfAbsent(ref, mine);
            if (outcome == null) {
              outcome = mine;
              inFlight.acquireUninterruptibly(); // bounds the redeems this scan has in flight
              cc.redeem(ref, cc.ticker().read() + deadline.toNanos())
                  .handle((bytes, failure) -> classify(failure))
                  .whenComplete((o, f) -> {
                    inFlight.release();
                    mine.complete(o == null ? "unreadable" : o);
                  });
            }
          }
          tallies.add(outcome.thenAccept(o -> {
            counts.get(o).increment();
            if (!o.equals("redeemed")) {
              problem(problems, topic, partition, offset, isKey, o, ref.claimId().toString(),
                  ref.tenant().value());
            }
          }));
        }

        @Override
        public void malformed(
            String topic, int partition, long offset, boolean isKey, MalformedRefException e) {
          counts.get("malformed").increment();
          problem(problems, topic, partition, offset, isKey, "malformed", e.getMessage(), null);
        }
      });
      CompletableFuture.allOf(tallies.toArray(CompletableFuture[]::new)).join();
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("topics", new ArrayList<>(snapshot.topics()));
    m.put("partitions", snapshot.end().size());
    m.put("records", read.records());
    m.put("complete", read.complete());
    counts.forEach((k, v) -> m.put(k, v.sum()));
    m.put("distinct_claims", outcomes.size());
    m.put("incomplete_partitions", read.incomplete().entrySet().stream()
        .map(e -> e.getKey() + ": " + e.getValue()).toList());
    List<Map<String, Object>> shown;
    synchronized (problems) {
      shown = new ArrayList<>(problems.subList(0, Math.min(maxProblems, problems.size())));
    }
    m.put("problems", shown);
    PrintWriter out = spec.commandLine().getOut();
    if (common.json) {
      out.println(Json.write(m));
    } else {
      m.forEach((k, v) -> {
        if (!k.equals("problems")) {
          out.printf("%-22s %s%n", k, v);
        }
      });
      shown.forEach(p -> out.println(p.get("outcome") + " " + p.get("topic") + "-"
          + p.get("partition") + "@" + p.get("offset") + (Boolean.TRUE.equals(p.get("key"))
              ? " key " : " value ") + p.get("detail")));
    }
    if (!read.complete()) {
      spec.commandLine().getErr().println("claimcheck: scan: " + read.incomplete().size()
          + " partition(s) could not be read to their end");
      return ExitCodes.INCOMPLETE;
    }
    long bad = counts.get("refs").sum() - counts.get("redeemed").sum()
        + counts.get("malformed").sum();
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

  private static void problem(List<Map<String, Object>> problems, String topic, int partition,
      long offset, boolean isKey, String outcome, String detail, String tenant) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("outcome", outcome);
    p.put("topic", topic);
    p.put("partition", partition);
    p.put("offset", offset);
    p.put("key", isKey);
    p.put("tenant", tenant);
    p.put("detail", detail);
    problems.add(p);
  }
}
