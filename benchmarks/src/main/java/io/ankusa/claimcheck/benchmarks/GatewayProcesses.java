package io.ankusa.claimcheck.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The child processes of {@link GatewayHarness}: the testkit's servers (S3Proxy, and a Kafka broker
 * the harness does not use) and gateway jars on them, each as a user starts it; stops them all on
 * {@link #close}. Not thread-safe.
 */
final class GatewayProcesses implements AutoCloseable {

  static final String BUCKET = "bench";

  private final List<Process> children = new ArrayList<>();
  private final Map<String, Process> gateways = new HashMap<>();
  private final Path dir;
  private final Path jar;
  final String token = "bench-" + UUID.randomUUID();
  final Map<String, String> s3 = new HashMap<>();

  GatewayProcesses(Path dir, Path jar) {
    this.dir = dir;
    this.jar = jar;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Starts ServersMain (bucket {@link #BUCKET}) and reads its SERVERS line into {@link #s3}. */
  void startServers() throws IOException {
    Process p =
        new ProcessBuilder(
                java(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.ankusa.claimcheck.testkit.ServersMain",
                BUCKET)
            .redirectError(dir.resolve("servers.stderr").toFile())
            .start();
    children.add(p); // its stdin stays open until close(): the servers run until then
    String line = awaitLine(p, Pattern.compile("SERVERS (.*)"), "servers.stderr");
    for (String kv : line.split(" ")) {
      int eq = kv.indexOf('=');
      s3.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
  }

  /** Starts a gateway jar on the S3 server with {@code extra} keys; returns where it listens. */
  URI startGateway(String name, Map<String, String> extra) throws Exception {
    return startGateway(name, extra, List.of());
  }

  /**
   * How many threads the gateway started as {@code name} runs now (Linux: its /proc status), or -1.
   */
  int threads(String name) {
    Process p = gateways.get(name);
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + p.pid() + "/status"))) {
        if (line.startsWith("Threads:")) {
          return Integer.parseInt(line.substring(8).strip());
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Whether the gateway started as {@code name} still runs. */
  boolean alive(String name) {
    return gateways.get(name).isAlive();
  }

  /**
   * Starts a gateway jar with {@code jvm} options (such as {@code -Xmx256m}) on the S3 server with
   * {@code extra} keys (which may name other stores); returns where it listens.
   */
  URI startGateway(String name, Map<String, String> extra, List<String> jvm) throws Exception {
    return startGateway(name, extra, jvm, jar);
  }

  /** As above, from another gateway jar (an A/B comparison of two builds). */
  URI startGateway(String name, Map<String, String> extra, List<String> jvm, Path gatewayJar)
      throws Exception {
    Path tokens = dir.resolve(name + "-tokens.txt");
    String hash =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
    Files.writeString(tokens, hash + " bench read,write\n");
    StringBuilder props = new StringBuilder();
    Map<String, String> m = new java.util.TreeMap<>();
    m.put("claimcheck.stores", "s3://" + BUCKET);
    m.put("claimcheck.s3.endpoint", s3.get("s3"));
    m.put("claimcheck.s3.region", s3.get("region"));
    m.put("claimcheck.s3.path.style.access", "true");
    m.put("claimcheck.s3.access.key.id", s3.get("access"));
    m.put("claimcheck.s3.secret.access.key", s3.get("secret"));
    m.put("claimcheck.tenant", "bench");
    m.put("gateway.tls.enabled", "false");
    m.put("gateway.listen", "127.0.0.1:0");
    m.put("gateway.tokens.file", tokens.toString());
    m.putAll(extra);
    m.forEach((k, v) -> props.append(k).append('=').append(v).append('\n'));
    Path file = dir.resolve(name + ".properties");
    Files.writeString(file, props.toString());
    Process p =
        new ProcessBuilder(command(jvm, file, gatewayJar))
            .redirectError(dir.resolve(name + ".stderr").toFile())
            .start();
    children.add(p);
    gateways.put(name, p);
    String line =
        awaitLine(p, Pattern.compile("gateway listening on (http://\\S+)"), name + ".stderr");
    return URI.create(line);
  }

  /**
   * Starts each of {@code jars} with its cache off (every GET a store read), named {@code g0},
   * {@code g1}, …; returns where each listens, in order.
   */
  List<URI> startCacheOffGateways(List<Path> jars) throws Exception {
    List<URI> uris = new ArrayList<>();
    for (int j = 0; j < jars.size(); j++) {
      uris.add(
          startGateway("g" + j, Map.of("claimcheck.cache.max.bytes", "0"), List.of(), jars.get(j)));
    }
    return uris;
  }

  /**
   * The CPUs gateways run on ({@code -Dgateway.cpus}, a {@code taskset -c} list such as {@code 1}):
   * with the harness itself started under {@code taskset -c} on the others, the load generator
   * cannot take the gateway's cores; unset (default), every process shares every core.
   */
  private static final String GATEWAY_CPUS = System.getProperty("gateway.cpus", "");

  private static List<String> command(List<String> jvm, Path config, Path jar) {
    List<String> c = new ArrayList<>();
    if (!GATEWAY_CPUS.isEmpty()) {
      c.addAll(List.of("taskset", "-c", GATEWAY_CPUS));
    }
    c.add(java());
    c.addAll(jvm);
    c.addAll(List.of("-jar", jar.toString(), "--config", config.toString()));
    return c;
  }

  private String awaitLine(Process p, Pattern pattern, String stderr) throws IOException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null) {
      Matcher m = pattern.matcher(line);
      if (m.matches()) {
        return m.group(1);
      }
    }
    throw new IllegalStateException(
        "child ended before printing " + pattern + ": " + Files.readString(dir.resolve(stderr)));
  }

  @Override
  public void close() {
    for (Process p : children) {
      p.destroy();
    }
    for (Process p : children) {
      try {
        if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
