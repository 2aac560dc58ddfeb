package io.ankusa.claimcheck.benchmarks;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * For profiling by hand: S3Proxy and one gateway jar (its cache off, plain HTTP) as {@link
 * GatewayHarness} starts them, with extra JVM options (such as a JFR recording), 64 claims of
 * {@code size} bytes checked in; prints the gateway's address, its token and a wrk paths file, then
 * runs until its stdin closes. Args: {@code gateway-jar size [key=value|-jvm-option]...}. Not
 * thread-safe.
 */
public final class GatewayProbe {

  private GatewayProbe() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    int size = Integer.parseInt(args[1]);
    Map<String, String> extra = new HashMap<>(Map.of("claimcheck.cache.max.bytes", "0"));
    List<String> jvm = new ArrayList<>();
    for (String a : Arrays.copyOfRange(args, 2, args.length)) {
      if (a.startsWith("-")) {
        jvm.add(a);
      } else {
        extra.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
      }
    }
    Path dir = Files.createTempDirectory("gateway-probe");
    try (GatewayProcesses rig = new GatewayProcesses(dir, jar)) {
      rig.startServers();
      URI gw = rig.startGateway("probe", extra, jvm);
      GatewayLoad load = new GatewayLoad(rig.token);
      StringBuilder lines = new StringBuilder();
      for (int j = 0; j < 64; j++) {
        byte[] b = new byte[size];
        new Random(j).nextBytes(b);
        lines.append("/v1/claims/").append(load.checkIn(gw, b)).append('\n');
      }
      Path paths = Files.writeString(dir.resolve("paths.txt"), lines);
      Path script = Files.writeString(dir.resolve("paths.lua"), Wrk.SCRIPT);
      System.out.println("PROBE " + gw + " " + rig.token + " " + script + " " + paths + " " + dir);
      System.out.flush();
      while (System.in.read() >= 0) {
        // runs until stdin closes
      }
    }
  }
}
