package io.ankusa.claimcheck.examples;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.runtime.Connect;

/**
 * A Kafka Connect standalone worker running in this JVM, configured as a user would configure one
 * and driven through its REST API; thread-safe (Connect's herder and REST server are).
 *
 * <p>Plugins are found with {@code plugin.discovery=service_load} on the classpath: the claim-check
 * transforms and this module's demo connectors. Keys use {@code StringConverter}, values {@code
 * ByteArrayConverter} (what the transforms require for the field they transform).
 */
final class ConnectWorker implements AutoCloseable {

  private final Connect<?> connect;
  private final Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  private ConnectWorker(Connect<?> connect, Path dir) {
    this.connect = connect;
    this.dir = dir;
  }

  /** Starts a worker against {@code bootstrapServers}; its REST server listens on a free port. */
  static ConnectWorker start(String bootstrapServers) throws IOException {
    Path dir = Files.createTempDirectory("claimcheck-connect-demo-");
    Map<String, String> worker = new HashMap<>();
    worker.put("bootstrap.servers", bootstrapServers);
    worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    worker.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    worker.put("offset.storage.file.filename", dir.resolve("offsets").toString());
    worker.put("offset.flush.interval.ms", "1000");
    worker.put("plugin.discovery", "service_load");
    worker.put("listeners", "http://localhost:0");
    return new ConnectWorker(new ConnectStandalone().startConnect(worker), dir);
  }

  /**
   * Creates connector {@code name} with {@code config} through {@code POST /connectors}.
   *
   * @throws IllegalStateException when the worker refuses it, with the worker's answer
   */
  void createConnector(String name, Map<String, String> config)
      throws IOException, InterruptedException {
    String body =
        "{\"name\":"
            + json(name)
            + ",\"config\":{"
            + config.entrySet().stream()
                .map(e -> json(e.getKey()) + ":" + json(e.getValue()))
                .collect(Collectors.joining(","))
            + "}}";
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(connect.rest().serverUrl() + "connectors"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException(
          "Connect refused connector "
              + name
              + ": HTTP "
              + response.statusCode()
              + " "
              + response.body());
    }
  }

  /** Stops the worker (its connectors and tasks first) and deletes its offsets file. */
  @Override
  public void close() {
    try {
      connect.stop();
      connect.awaitStop();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // Best effort: a temporary directory.
      }
    }
  }

  private static String json(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
