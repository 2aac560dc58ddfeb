package io.ankusa.claimcheck.benchmarks;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One client's request latency through gateway builds and a raw SDK GET, interleaved request by
 * request so that whatever drifts on the machine (the JIT, a neighbour, the clock) weighs on every
 * side alike: S3Proxy and each jar as child processes (cache off: every GET a store read), 64
 * claims of {@code size} bytes, then cycles of one GET from each side, the order rotated by one
 * place every cycle (raw, jar 1, …, jar n; jar 1, …, jar n, raw; …) so that every side takes every
 * place equally often and none follows itself, each GET on the side's own keep-alive connection
 * ({@link RawGet}) and going round the claims. Prints per side the mean, median and p90 latency
 * over the measured cycles, and each jar's mean against the raw GET's (the ratio of one client's
 * throughputs). Args: {@code warmup-seconds cycles size jar...}. Not thread-safe.
 */
public final class GatewayLatencyAb {

  private GatewayLatencyAb() {}

  public static void main(String[] args) throws Exception {
    int warm = Integer.parseInt(args[0]);
    int cycles = Integer.parseInt(args[1]);
    int size = Integer.parseInt(args[2]);
    List<Path> jars = Arrays.stream(args, 3, args.length).map(Path::of).toList();
    Path dir = Files.createTempDirectory("gateway-latency");
    try (GatewayProcesses rig = new GatewayProcesses(dir, jars.get(0))) {
      rig.startServers();
      List<URI> gws = rig.startCacheOffGateways(jars);
      List<String> paths = new GatewayLoad(rig.token).checkInClaims(gws.get(0), size, 64);
      int sides = jars.size() + 1;
      List<RawGet> clients = new ArrayList<>();
      for (URI gw : gws) {
        clients.add(new RawGet(gw, rig.token));
      }
      try (S3Client s3 = GatewayHarness.s3(rig.s3)) {
        List<String> keys =
            s3.listObjectsV2Paginator(b -> b.bucket(GatewayProcesses.BUCKET)).contents().stream()
                .map(S3Object::key)
                .toList();
        long warmEnd = System.nanoTime() + warm * 1_000_000_000L;
        int k = 0;
        while (System.nanoTime() < warmEnd) {
          for (int side = 0; side < sides; side++) {
            one(side, s3, keys, clients, paths, k);
          }
          k++;
        }
        long[][] nanos = new long[sides][cycles];
        for (int c = 0; c < cycles; c++, k++) {
          for (int i = 0; i < sides; i++) {
            // Rotated: every side takes every place in turn and none runs twice in a row (a side
            // that follows itself finds its own caches warm: reversing every other cycle did that).
            int side = (c + i) % sides;
            long t0 = System.nanoTime();
            one(side, s3, keys, clients, paths, k);
            nanos[side][c] = System.nanoTime() - t0;
          }
        }
        double rawMean = Arrays.stream(nanos[0]).average().orElse(0);
        System.out.printf("%d B, %d cycles after %d s of warm-up:%n", size, cycles, warm);
        for (int side = 0; side < sides; side++) {
          long[] s = nanos[side].clone();
          Arrays.sort(s);
          double mean = Arrays.stream(s).average().orElse(0);
          System.out.printf(
              "  %-28s mean %7.1f us  median %7.1f us  p90 %7.1f us  throughput %.2fx the raw"
                  + " GET%n",
              side == 0 ? "raw SDK GET" : jars.get(side - 1).getFileName(),
              mean / 1e3,
              s[s.length / 2] / 1e3,
              s[(int) (s.length * 0.9)] / 1e3,
              rawMean / mean);
        }
      } finally {
        for (RawGet c : clients) {
          c.close();
        }
      }
    }
  }

  private static void one(
      int side, S3Client s3, List<String> keys, List<RawGet> clients, List<String> paths, int k)
      throws Exception {
    if (side == 0) {
      s3.getObjectAsBytes(b -> b.bucket(GatewayProcesses.BUCKET).key(keys.get(k % keys.size())));
      return;
    }
    int status = clients.get(side - 1).get(paths.get(k % paths.size()));
    if (status != 200) {
      throw new IllegalStateException("status " + status);
    }
  }
}
