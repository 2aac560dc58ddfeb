package io.ankusa.claimcheck.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of {@code wrk} (under {@code /usr/bin/time}, for its CPU): requests a second, non-2xx
 * answers, the 99th percentile latency and the CPU seconds wrk used. Each connection GETs the paths
 * of a file in turn (a Lua script), so that concurrent requests ask for different claims.
 * Immutable.
 */
record Wrk(double requestsPerSecond, long non2xx, double p99Ms, double cpuSeconds, String output) {

  /** The script: each wrk thread starts at a random line of the paths file and goes round. */
  static final String SCRIPT =
      String.join(
          "\n",
          "local paths = {}",
          "local i = 0",
          "init = function(args)",
          "  for line in io.lines(args[1]) do paths[#paths + 1] = line end",
          "  i = math.random(#paths)",
          "end",
          "request = function()",
          "  i = i % #paths + 1",
          "  return wrk.format(\"GET\", paths[i])",
          "end",
          "");

  /**
   * Runs wrk with {@code connections} connections for {@code seconds} against {@code base}, GETting
   * the paths of {@code paths} (one a line) through {@code script} ({@link #SCRIPT}).
   */
  static Wrk run(URI base, String token, Path script, Path paths, int connections, int seconds)
      throws IOException, InterruptedException {
    int threads = Math.min(connections, 2);
    Process p =
        new ProcessBuilder(
                List.of(
                    "/usr/bin/time",
                    "-f",
                    "CPU %U %S",
                    "wrk",
                    "-t" + threads,
                    "-c" + connections,
                    "-d" + seconds + "s",
                    "--latency",
                    "-s",
                    script.toString(),
                    "-H",
                    "Authorization: Bearer " + token,
                    base.toString(),
                    "--",
                    paths.toString()))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("wrk failed: " + out);
    }
    double rps = number(out, "Requests/sec:\\s+([0-9.]+)");
    long non2xx = (long) orZero(out, "Non-2xx or 3xx responses:\\s+(\\d+)");
    double p99 = latencyMs(out);
    Matcher cpu = Pattern.compile("CPU ([0-9.]+) ([0-9.]+)").matcher(out);
    double cpuSeconds =
        cpu.find() ? Double.parseDouble(cpu.group(1)) + Double.parseDouble(cpu.group(2)) : -1;
    return new Wrk(rps, non2xx, p99, cpuSeconds, out);
  }

  private static double number(String out, String regex) {
    Matcher m = Pattern.compile(regex).matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("no " + regex + " in wrk's output: " + out);
    }
    return Double.parseDouble(m.group(1));
  }

  private static double orZero(String out, String regex) {
    Matcher m = Pattern.compile(regex).matcher(out);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** The "99%" line of wrk's latency distribution, in ms. */
  private static double latencyMs(String out) {
    Matcher m = Pattern.compile("\\s99%\\s+([0-9.]+)(us|ms|s)").matcher(out);
    if (!m.find()) {
      return -1;
    }
    double v = Double.parseDouble(m.group(1));
    return switch (m.group(2)) {
      case "us" -> v / 1e3;
      case "s" -> v * 1e3;
      default -> v;
    };
  }
}
