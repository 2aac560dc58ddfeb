package io.ankusa.claimcheck.examples.springboot;

import java.io.BufferedReader;
import java.io.File;
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
 * A Kafka 4.4 broker and an S3 server in a child JVM (testkit's {@code ServersMain}), so this JVM's
 * class path holds only Spring Boot's kafka-clients; closing it ends the child. Not thread-safe
 * (one test uses it).
 */
final class ServersProcess implements AutoCloseable {

  private final Process process;
  private final Map<String, String> fields;

  private ServersProcess(Process process, Map<String, String> fields) {
    this.process = process;
    this.fields = fields;
  }

  /** Starts the servers with {@code bucket} created, and returns once both serve. */
  static ServersProcess start(String bucket) throws IOException, InterruptedException {
    String jar = System.getProperty("servers.jar");
    String cp = System.getProperty("servers.classpath");
    if (jar == null || cp == null || !Files.exists(Path.of(jar)) || !Files.exists(Path.of(cp))) {
      throw new IllegalStateException(
          "testkit is not packaged (" + jar + ", " + cp + "): run through the reactor with -am");
    }
    String classpath = jar + File.pathSeparator + Files.readString(Path.of(cp)).trim();
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                java.toString(),
                "-Xmx768m",
                "-cp",
                classpath,
                "io.ankusa.claimcheck.testkit.ServersMain",
                bucket));
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
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
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

  String s3Endpoint() {
    return fields.get("s3");
  }

  String region() {
    return fields.get("region");
  }

  String accessKey() {
    return fields.get("access");
  }

  String secretKey() {
    return fields.get("secret");
  }

  /** Closes the child's input, which stops it; waits up to 30 s, then kills it. */
  @Override
  public void close() throws IOException {
    try (OutputStream in = process.getOutputStream()) {
      in.flush(); // closing our end tells the child to stop
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
