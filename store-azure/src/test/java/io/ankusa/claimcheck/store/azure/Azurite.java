package io.ankusa.claimcheck.store.azure;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Azurite's Blob service (Microsoft's Azure Storage emulator, npm {@code azurite}, installed into
 * {@code store-azure/azurite/node_modules} by {@code .ci/run}: {@code npm ci}), started once per
 * test JVM on a free loopback port (blobs in memory, telemetry off, its log in a fresh folder) and
 * stopped when the JVM exits.
 *
 * <p>Where it is not installed the tests that need it are skipped with an assumption saying how to
 * install it, except under CI ({@code CI} set), where its absence fails them.
 */
public final class Azurite {

  /** Azurite's well-known development account and key (public, in Microsoft's documentation). */
  public static final String ACCOUNT = "devstoreaccount1";

  public static final String KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  /** Where {@code npm ci --prefix store-azure/azurite} puts it, from this module or a sibling. */
  private static final Path BIN = bin();

  private static Azurite shared;

  private final Process process;
  private final int port;

  private Azurite(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The one Azurite of this JVM, started on first use; skips the test where it is absent. */
  public static synchronized Azurite shared() {
    if (shared == null) {
      if (!Files.isExecutable(BIN)) {
        String how =
            "Azurite is not installed ("
                + BIN.toAbsolutePath()
                + " is missing): run `npm ci --prefix store-azure/azurite` (as .ci/run does)";
        if (System.getenv("CI") != null) {
          throw new IllegalStateException(how);
        }
        // A class-level assumption shows as "Tests run: 0" alone: say why where the log shows it.
        System.err.println("SKIPPED (assumption): " + how);
        Assumptions.assumeTrue(false, how);
      }
      shared = start();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "azurite-stop"));
    }
    return shared;
  }

  /**
   * Whether Azurite is installed where {@link #shared()} looks for it: a test that can run on
   * another store instead asks this first, unless under CI ({@code CI} set), where {@link
   * #shared()} must be used (its absence fails there).
   */
  public static boolean installed() {
    return Files.isExecutable(BIN);
  }

  private static Path bin() {
    Path here = Path.of("azurite", "node_modules", ".bin", "azurite-blob");
    Path sibling = Path.of("..", "store-azure").resolve(here);
    return Files.exists(here) || !Files.exists(sibling) ? here : sibling;
  }

  private static Azurite start() {
    try {
      int port = freePort();
      Path data = Files.createTempDirectory("azurite-");
      ProcessBuilder pb =
          new ProcessBuilder(
                  List.of(
                      BIN.toAbsolutePath().toString(),
                      "--blobHost",
                      "127.0.0.1",
                      "--blobPort",
                      String.valueOf(port),
                      "--silent",
                      "--skipApiVersionCheck",
                      "--loose",
                      // Blobs in memory (no --location, which it excludes): no disk writes on a
                      // loaded machine, where Azurite's single thread is the slowest store.
                      "--inMemoryPersistence",
                      // No telemetry (Azurite collects it by default): tests call nothing outside.
                      "--disableTelemetry"))
              .redirectErrorStream(true)
              .redirectOutput(data.resolve("azurite.log").toFile());
      Process p = pb.start();
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < end) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "Azurite exited with " + p.exitValue() + ": " + data.resolve("azurite.log"));
        }
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", port), 200);
          return new Azurite(p, port);
        } catch (IOException notYet) {
          Thread.sleep(100);
        }
      }
      p.destroyForcibly();
      throw new IllegalStateException("Azurite did not listen on port " + port + " within 60 s");
    } catch (IOException e) {
      throw new IllegalStateException("cannot start Azurite", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting Azurite", e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** {@code http://127.0.0.1:<port>}: the server, without the account (for a proxy's target). */
  public URI server() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The Blob endpoint of the development account (the account in the path, as Azurite wants). */
  public URI endpoint() {
    return URI.create(server() + "/" + ACCOUNT);
  }

  /** Creates {@code name} (if absent) with the SDK directly, and returns its client. */
  public BlobContainerClient createContainer(String name) {
    BlobContainerClient c =
        new BlobServiceClientBuilder()
            .endpoint(endpoint().toString())
            .credential(new StorageSharedKeyCredential(ACCOUNT, KEY))
            .buildClient()
            .getBlobContainerClient(name);
    c.createIfNotExists();
    return c;
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
