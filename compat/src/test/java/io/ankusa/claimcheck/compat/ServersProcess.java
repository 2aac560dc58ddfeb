package io.ankusa.claimcheck.compat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Kafka 4.4 broker and an S3 server in a child JVM (testkit's {@code ServersMain}), so this
 * JVM's class path can hold another Kafka version's clients; closing it ends the child.
 */
final class ServersProcess implements AutoCloseable {

  static final String BUCKET = "compat";

  private final Process process;
  private final Map<String, String> fields;

  private ServersProcess(Process process, Map<String, String> fields) {
    this.process = process;
    this.fields = fields;
  }

  static ServersProcess start() throws IOException, InterruptedException {
    String jar = System.getProperty("compat.servers.jar");
    Path cpFile = Path.of(System.getProperty("compat.servers.classpath"));
    if (jar == null || !Files.exists(Path.of(jar)) || !Files.exists(cpFile)) {
      throw new IllegalStateException("testkit is not packaged (" + jar + ", " + cpFile + ")");
    }
    String classpath = jar + java.io.File.pathSeparator + Files.readString(cpFile).trim();
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(java.toString(), "-Xmx768m", "-cp", classpath,
                "io.ankusa.claimcheck.testkit.ServersMain", BUCKET));
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> ready =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                for (String line; (line = out.readLine()) != null; ) {
                  if (line.startsWith("SERVERS ")) {
                    return line;
                  }
                }
                return null;
              } catch (IOException e) {
                return null;
              }
            });
    String line;
    try {
      line = ready.get(120, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IllegalStateException("the servers did not start in 120 s", e);
    }
    if (line == null) {
      p.destroyForcibly();
      throw new IllegalStateException("the servers process ended: exit " + p.waitFor());
    }
    Map<String, String> fields = new HashMap<>();
    for (String part : line.substring("SERVERS ".length()).split(" ")) {
      int eq = part.indexOf('=');
      fields.put(part.substring(0, eq), part.substring(eq + 1));
    }
    return new ServersProcess(p, fields);
  }

  String bootstrapServers() {
    return fields.get("bootstrap");
  }

  /** The claim-check settings of a store on the S3 server (bucket {@value #BUCKET}). */
  Map<String, String> claimCheck(String tenant) {
    Map<String, String> m = new HashMap<>();
    m.put("claimcheck.stores", "s3://" + BUCKET + "/" + tenant);
    m.put("claimcheck.s3.endpoint", fields.get("s3"));
    m.put("claimcheck.s3.region", fields.get("region"));
    m.put("claimcheck.s3.path.style.access", "true");
    m.put("claimcheck.s3.access.key.id", fields.get("access"));
    m.put("claimcheck.s3.secret.access.key", fields.get("secret"));
    m.put("claimcheck.tenant", tenant);
    m.put("claimcheck.threshold.bytes", "1024");
    return m;
  }

  @Override
  public void close() throws Exception {
    try (OutputStream in = process.getOutputStream()) {
      in.flush(); // closing our end tells the child to stop
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
