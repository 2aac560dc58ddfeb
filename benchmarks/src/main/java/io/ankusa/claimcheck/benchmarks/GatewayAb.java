package io.ankusa.claimcheck.benchmarks;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Two gateway builds side by side on one S3Proxy, in the balanced order A B B A (a relative figure
 * for a change; on a loaded machine the only kind worth taking): wrk GETting 64 claims of 256 KiB
 * from each build with its cache off at 1 and 16 connections, then each build's shedding at 4x a
 * gate of {@code gate} (64 clients hammering). Args: {@code jarA jarB [seconds (5)] [gate (16)]}.
 * Not thread-safe.
 */
public final class GatewayAb {

  private GatewayAb() {}

  public static void main(String[] args) throws Exception {
    Path a = Path.of(args[0]);
    Path b = Path.of(args[1]);
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int gate = args.length > 3 ? Integer.parseInt(args[3]) : 16;
    Path dir = Files.createTempDirectory("gateway-ab");
    try (GatewayProcesses rig = new GatewayProcesses(dir, a)) {
      rig.startServers();
      Map<String, String> off = Map.of("claimcheck.cache.max.bytes", "0");
      Map<String, String> gated = Map.of("claimcheck.max.concurrent.reads", Integer.toString(gate));
      URI[] offs = {
        rig.startGateway("a-off", off, List.of(), a), rig.startGateway("b-off", off, List.of(), b)
      };
      URI[] gates = {
        rig.startGateway("a-gate", gated, List.of(), a),
        rig.startGateway("b-gate", gated, List.of(), b)
      };
      GatewayLoad load = new GatewayLoad(rig.token);
      StringBuilder lines = new StringBuilder();
      String one = null;
      for (int j = 0; j < 64; j++) {
        byte[] body = new byte[256 << 10];
        new Random(j).nextBytes(body);
        String ref = load.checkIn(offs[0], body);
        one = one == null ? "/v1/claims/" + ref : one;
        lines.append("/v1/claims/").append(ref).append('\n');
      }
      Path paths = Files.writeString(dir.resolve("paths.txt"), lines);
      Path script = Files.writeString(dir.resolve("paths.lua"), Wrk.SCRIPT);
      int[] order = {0, 1, 1, 0};
      for (int c : new int[] {1, 16}) {
        // Warm-up: each build is a JVM of its own whose JIT takes about a minute of load to settle
        // on 2 cores (see GatewayHarness); -Dgateway.warmup.seconds per build and connection count.
        int warm = Integer.getInteger("gateway.warmup.seconds", 30);
        Wrk.run(offs[0], rig.token, script, paths, c, warm);
        Wrk.run(offs[1], rig.token, script, paths, c, warm);
        double[] rps = new double[2];
        for (int side : order) {
          rps[side] +=
              Wrk.run(offs[side], rig.token, script, paths, c, seconds).requestsPerSecond();
        }
        System.out.printf(
            "256 KiB cache off, %2d connections: A %.1f MiB/s, B %.1f MiB/s, B/A %.2fx%n",
            c, rps[0] / 8, rps[1] / 8, rps[1] / rps[0]);
      }
      for (URI g : gates) {
        // Warm-up: the claim cached, the gated paths compiled.
        load.load(g, one, 4 * gate, Integer.getInteger("gateway.warmup.seconds", 30), 0);
      }
      for (int side : order) {
        GatewayLoad.Latencies l = load.load(gates[side], one, 4 * gate, seconds, 0);
        System.out.printf(
            "%s gate of %d at 4x, hammering: %d admitted p99 %.2f ms; %d shed p50 %.2f ms,"
                + " p99 %.2f ms%n",
            side == 0 ? "A" : "B",
            gate,
            l.admitted().size(),
            GatewayLoad.Latencies.percentile(l.admitted(), 0.99),
            l.shed().size(),
            GatewayLoad.Latencies.percentile(l.shed(), 0.5),
            GatewayLoad.Latencies.percentile(l.shed(), 0.99));
      }
    }
  }
}
