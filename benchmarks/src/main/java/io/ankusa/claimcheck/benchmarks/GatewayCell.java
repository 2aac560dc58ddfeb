package io.ankusa.claimcheck.benchmarks;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One cell of {@link GatewayHarness}'s throughput table, for any number of gateway builds side by
 * side with the raw SDK loop: S3Proxy and each jar as child processes (cache off: every GET a store
 * read), 64 claims of {@code size} bytes, a warm-up of every side, then {@code rounds} rounds in
 * balanced order (raw, jar 1, …, jar n, then the same reversed in the next round); prints each
 * round's MiB/s and each jar's ratio to the raw loop of the same round, and the medians. Args:
 * {@code seconds rounds size connections jar...}; {@code -Dgateway.warmup.seconds} per side
 * (default 60). Not thread-safe.
 */
public final class GatewayCell {

  private GatewayCell() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    int size = Integer.parseInt(args[2]);
    int connections = Integer.parseInt(args[3]);
    List<Path> jars = Arrays.stream(args, 4, args.length).map(Path::of).toList();
    int warm = Integer.getInteger("gateway.warmup.seconds", 60);
    Path dir = Files.createTempDirectory("gateway-cell");
    try (GatewayProcesses rig = new GatewayProcesses(dir, jars.get(0))) {
      rig.startServers();
      List<URI> gws = rig.startCacheOffGateways(jars);
      List<String> claims = new GatewayLoad(rig.token).checkInClaims(gws.get(0), size, 64);
      Path paths = Files.write(dir.resolve("paths.txt"), claims);
      Path script = Files.writeString(dir.resolve("paths.lua"), Wrk.SCRIPT);
      try (S3Client s3 = GatewayHarness.s3(rig.s3)) {
        List<String> keys =
            s3.listObjectsV2Paginator(b -> b.bucket(GatewayProcesses.BUCKET)).contents().stream()
                .map(S3Object::key)
                .toList();
        double mib = (double) size / (1 << 20);
        for (URI gw : gws) {
          Wrk.run(gw, rig.token, script, paths, connections, warm);
        }
        GatewayHarness.rawLoop(s3, keys, connections, warm);
        int sides = jars.size() + 1;
        double[][] mibs = new double[sides][rounds];
        for (int r = 0; r < rounds; r++) {
          for (int k = 0; k < sides; k++) {
            int side = r % 2 == 0 ? k : sides - 1 - k;
            mibs[side][r] =
                side == 0
                    ? GatewayHarness.rawLoop(s3, keys, connections, seconds)[0]
                    : Wrk.run(gws.get(side - 1), rig.token, script, paths, connections, seconds)
                            .requestsPerSecond()
                        * mib;
          }
          StringBuilder line = new StringBuilder("round " + r + ": raw " + fmt(mibs[0][r]));
          for (int j = 1; j < sides; j++) {
            line.append(", jar ").append(j).append(' ').append(fmt(mibs[j][r]));
            line.append(String.format(" (%.2fx)", mibs[j][r] / mibs[0][r]));
          }
          System.out.println(line);
        }
        System.out.printf(
            "%d B x %d connections, median of %d rounds: raw %s MiB/s%n",
            size, connections, rounds, fmt(median(mibs[0])));
        for (int j = 1; j < sides; j++) {
          double[] ratio = new double[rounds];
          for (int r = 0; r < rounds; r++) {
            ratio[r] = mibs[j][r] / mibs[0][r];
          }
          System.out.printf(
              "  jar %d %s: %s MiB/s, %.2fx the raw loop%n",
              j, jars.get(j - 1), fmt(median(mibs[j])), median(ratio));
        }
      }
    }
  }

  private static String fmt(double v) {
    return String.format("%.1f", v);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
