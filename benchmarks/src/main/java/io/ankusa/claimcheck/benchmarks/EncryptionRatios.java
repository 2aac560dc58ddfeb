package io.ankusa.claimcheck.benchmarks;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link EncryptionBenchmark} (JMH) and prints, per store, operation and size, the throughput
 * with encryption off and on and their ratio (local / none): the issue-19 table in one command.
 * Extra arguments are JMH's ({@code -p store=memory}, {@code -wi 2}, ...).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar
 * io.ankusa.claimcheck.benchmarks.EncryptionRatios}
 */
public final class EncryptionRatios {

  private EncryptionRatios() {}

  public static void main(String[] args) throws Exception {
    Options cli = new CommandLineOptions(args);
    Options opts =
        new OptionsBuilder().parent(cli).include(EncryptionBenchmark.class.getSimpleName()).build();
    Collection<RunResult> results = new Runner(opts).run();
    Map<String, double[]> cells = new TreeMap<>();
    for (RunResult r : results) {
      var p = r.getParams();
      String op = p.getBenchmark().substring(p.getBenchmark().lastIndexOf('.') + 1);
      String cell = String.format("%-6s %-14s %9s", p.getParam("store"), op, p.getParam("size"));
      double[] c = cells.computeIfAbsent(cell, k -> new double[2]);
      c["none".equals(p.getParam("kek")) ? 0 : 1] = r.getPrimaryResult().getScore();
    }
    System.out.println();
    System.out.printf(
        "%-6s %-14s %9s %12s %12s %7s%n",
        "store", "op", "size", "none op/s", "local op/s", "ratio");
    for (Map.Entry<String, double[]> e : cells.entrySet()) {
      double[] c = e.getValue();
      System.out.printf(
          "%s %12.1f %12.1f %7.2f%n", e.getKey(), c[0], c[1], c[0] == 0 ? Double.NaN : c[1] / c[0]);
    }
  }
}
