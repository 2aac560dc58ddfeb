package io.ankusa.claimcheck.benchmarks;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link GatewayHarness}'s shedding runs alone, for request gates of any sizes: S3Proxy and one
 * gateway jar per gate as child processes, one 256 KiB claim checked in and cached; per gate, the
 * admitted p99 with 1 client (unloaded) and at the gate's capacity, then at 4x the gate honouring
 * Retry-After and hammering, with the shed answers' latency. The gateways start together and are
 * measured one after the other, each warmed first (a quarter of {@code -Dgateway.warmup.seconds},
 * default 120, at and past its gate). Args: {@code [seconds per run (10)] [gateway jar] [gates,
 * comma-separated (16,4,2)]}. To keep the load generator off the gateways' cores, start the harness
 * under {@code taskset -c 0} and give the gateways the rest with {@code -Dgateway.cpus=1} ({@link
 * GatewayProcesses}). Not thread-safe.
 */
public final class GatewayShedHarness {

  private GatewayShedHarness() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    Path jar = Path.of(args.length > 1 ? args[1] : "gateway/target/claimcheck-gateway.jar");
    String[] gates = (args.length > 2 ? args[2] : "16,4,2").split(",");
    Path dir = Files.createTempDirectory("gateway-shed");
    try (GatewayProcesses rig = new GatewayProcesses(dir, jar)) {
      rig.startServers();
      List<URI> gated = new ArrayList<>();
      for (String g : gates) {
        int gate = Integer.parseInt(g.trim());
        gated.add(
            rig.startGateway(
                "gate-" + gate, Map.of("claimcheck.max.concurrent.reads", Integer.toString(gate))));
      }
      GatewayLoad load = new GatewayLoad(rig.token);
      String one = "/v1/claims/" + load.checkIn(gated.get(0), GatewayHarness.random(256 << 10, 7));
      for (int i = 0; i < gates.length; i++) {
        int gate = Integer.parseInt(gates[i].trim());
        GatewayHarness.shedding(
            load,
            gated.get(i),
            gate,
            one,
            seconds,
            " (gateway CPUs: " + System.getProperty("gateway.cpus", "all") + ")");
      }
    }
  }
}
