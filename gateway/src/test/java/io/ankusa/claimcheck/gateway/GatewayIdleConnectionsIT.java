package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ten thousand open idle connections cost the gateway neither its answers nor unbounded resources:
 * it still answers, closes them after the idle timeout, and never holds more than {@code
 * gateway.max.connections}. The clients run in a child JVM ({@link IdleClients}), so that each end
 * of the connections has its own file descriptor limit (20,000 here: one JVM holding both ends of
 * 10,000 would pass it).
 */
class GatewayIdleConnectionsIT {

  /** How many idle connections are opened. */
  static final int IDLE = 10_000;

  /**
   * The idle timeout of the first test: long enough that all {@link #IDLE} connections are open
   * (about 1 s here) and counted before the first one times out, short enough not to drag.
   */
  static final long IDLE_MS = 12_000;

  @TempDir static Path dir;
  static FaultProxy proxy;
  static String bucket;

  @BeforeAll
  static void start() {
    bucket =
        EmbeddedS3.shared().createBucket("gwi-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private static Map<String, Object> config(int maxConnections, long idleMs) throws IOException {
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("gateway.max.connections", Integer.toString(maxConnections));
    m.put("gateway.idle.timeout.ms", Long.toString(idleMs));
    return m;
  }

  private static List<Socket> open(Gateway g, int n) throws IOException {
    List<Socket> out = new ArrayList<>(n);
    InetSocketAddress at = new InetSocketAddress("127.0.0.1", g.uri().getPort());
    for (int i = 0; i < n; i++) {
      Socket s = new Socket();
      s.connect(at, 10_000);
      out.add(s);
    }
    return out;
  }

  private static void closeAll(List<Socket> sockets) {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing a test socket is best effort
      }
    }
  }

  /** One {@code GET /health/live} on a fresh connection: its status line. */
  private static String live(Gateway g) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", g.uri().getPort()), 30_000);
      s.setSoTimeout(30_000);
      s.getOutputStream()
          .write(
              "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      byte[] head = s.getInputStream().readNBytes(12);
      return new String(head, StandardCharsets.US_ASCII);
    }
  }

  private static void await(String what, IntSupplier value, int atLeast, int atMost)
      throws InterruptedException {
    long end = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    int v;
    while ((v = value.getAsInt()) < atLeast || v > atMost) {
      if (System.nanoTime() > end) {
        throw new AssertionError(what + ": " + v + ", expected " + atLeast + ".." + atMost);
      }
      Thread.sleep(50);
    }
  }

  @Test
  void tenThousandIdleConnectionsStillLetARequestThroughAndAreClosedAfterTheIdleTimeout()
      throws Exception {
    try (Gateway g = Gateway.start(config(IDLE + 100, IDLE_MS))) {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      Process clients =
          new ProcessBuilder(
                  java.toString(),
                  "-Xmx128m",
                  "-cp",
                  Path.of("target", "test-classes").toString(),
                  IdleClients.class.getName(),
                  "127.0.0.1",
                  Integer.toString(g.uri().getPort()),
                  Integer.toString(IDLE),
                  Long.toString(IDLE_MS * 4))
              .redirectError(dir.resolve("clients-stderr.txt").toFile())
              .start();
      try {
        BufferedReader out =
            new BufferedReader(
                new InputStreamReader(clients.getInputStream(), StandardCharsets.US_ASCII));
        String opened = out.readLine();
        System.out.println("idle clients: " + opened);
        assertThat(opened)
            .as("the clients opened every connection: %s", stderr())
            .isEqualTo("OPENED " + IDLE + " " + opened.split(" ")[2]);
        long openMs = Long.parseLong(opened.split(" ")[2]);
        if (openMs > IDLE_MS / 2) {
          throw new AssertionError(
              "opening took " + openMs + " ms, too close to the idle timeout to count them all");
        }
        await("connections the gateway holds", g::openConnections, IDLE - 50, IDLE + 100);
        long t0 = System.nanoTime();
        assertThat(live(g)).isEqualTo("HTTP/1.1 200");
        assertThat(Duration.ofNanos(System.nanoTime() - t0))
            .as("answered well before any idle connection times out")
            .isLessThan(Duration.ofMillis(IDLE_MS));

        String closed = out.readLine();
        System.out.println("idle clients: " + closed);
        assertThat(closed)
            .as("idle connections the gateway closed: %s", stderr())
            .startsWith("CLOSED " + IDLE + " ");
        assertThat(Long.parseLong(closed.split(" ")[2]))
            .as("closed only after the idle timeout")
            .isGreaterThanOrEqualTo(IDLE_MS);
        assertThat(clients.waitFor(60, TimeUnit.SECONDS)).isTrue();
        await("connections the gateway holds after the idle timeout", g::openConnections, 0, 0);
      } finally {
        clients.destroyForcibly();
      }
    }
  }

  private static String stderr() throws IOException {
    return Files.readString(dir.resolve("clients-stderr.txt"));
  }

  @Test
  void theGatewayNeverHoldsMoreThanMaxConnections() throws Exception {
    try (Gateway g = Gateway.start(config(200, 5_000))) {
      List<Socket> idle = open(g, 200);
      try {
        await("connections the gateway holds", g::openConnections, 200, 200);
        CompletableFuture<String> waiting =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return live(g);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
        Thread.sleep(1_000); // a moment for an accept past the limit to show
        assertThat(g.openConnections()).as("at the limit, nothing more is accepted").isEqualTo(200);
        assertThat(waiting).as("the next connection waits in the backlog").isNotDone();
        assertThat(waiting.get(60, TimeUnit.SECONDS))
            .as("once the idle timeout frees slots, it is served")
            .isEqualTo("HTTP/1.1 200");
      } finally {
        closeAll(idle);
      }
    }
  }
}
