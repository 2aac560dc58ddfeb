package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim far larger than the gateway's heap goes up and down through a gateway started as a child
 * process with a small {@code -Xmx} (issue 17): {@code POST} as a streamed check-in into a file
 * store, {@code GET} as a streamed redeem, the bytes checked by a streaming SHA-256 on the client
 * side, and the gateway still alive (it runs with {@code -XX:+ExitOnOutOfMemoryError}).
 *
 * <p>By default 300 MiB under {@code -Xmx128m}; with {@code -Dclaimcheck.big=true}, the 2
 * GiB under {@code -Xmx256m} (a few minutes on a loaded two-core machine):
 *
 * <pre>
 * mvn -B -o -pl gateway -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dit.test=GatewayBigClaimIT -Dfailsafe.failIfNoSpecifiedTests=false -Dclaimcheck.big=true
 * </pre>
 */
class GatewayBigClaimIT {

  private static final boolean BIG =
      Boolean.parseBoolean(System.getProperty("claimcheck.big", "true"));
  private static final long SIZE = BIG ? 2L << 30 : 300L << 20;
  private static final String XMX = BIG ? "-Xmx256m" : "-Xmx128m";

  @TempDir Path dir;

  @Test
  void aClaimLargerThanTheHeapGoesUpAndDownThroughTheGateway() throws Exception {
    Path root = dir.resolve("store");
    Files.createDirectories(root);
    Files.writeString(root.resolve(".claimcheck-store"), "");
    Path props = dir.resolve("gateway.properties");
    Files.writeString(
        props,
        String.join(
            "\n",
            "claimcheck.stores=" + root.toUri(),
            "claimcheck.tenant=team-a",
            "claimcheck.stream.max.bytes=" + (4L << 30),
            "gateway.listen=127.0.0.1:0",
            "gateway.tls.enabled=false",
            "gateway.tokens.file=" + TestGateways.tokens(dir).toString().replace("\\", "/"),
            ""));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add(XMX);
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(GatewayMain.class.getName());
    cmd.add("--config");
    cmd.add(props.toString());
    Process gw = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      URI uri = listening(gw);
      HttpClient http = HttpClient.newHttpClient();
      MessageDigest up = MessageDigest.getInstance("SHA-256");
      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(URI.create(uri + "/v1/claims"))
                  .header("Authorization", "Bearer " + TestGateways.TOKEN_A)
                  .timeout(Duration.ofMinutes(20))
                  .POST(
                      HttpRequest.BodyPublishers.fromPublisher(
                          HttpRequest.BodyPublishers.ofInputStream(() -> new Generated(SIZE, up)),
                          SIZE))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      ClaimRef ref = RefCodec.decode(Base64.getUrlDecoder().decode(created.body()));
      assertThat(ref.isStreamed()).isTrue();
      assertThat(ref.length()).isEqualTo(SIZE);

      HttpResponse<InputStream> got =
          http.send(
              HttpRequest.newBuilder(URI.create(uri + "/v1/claims/" + created.body()))
                  .header("Authorization", "Bearer " + TestGateways.TOKEN_A)
                  .timeout(Duration.ofMinutes(20))
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.headers().firstValueAsLong("Content-Length")).hasValue(SIZE);
      MessageDigest down = MessageDigest.getInstance("SHA-256");
      long n = 0;
      try (InputStream in = got.body()) {
        byte[] buf = new byte[1 << 16];
        for (int r; (r = in.read(buf)) >= 0; ) {
          down.update(buf, 0, r);
          n += r;
        }
      }
      assertThat(n).isEqualTo(SIZE);
      assertThat(down.digest()).isEqualTo(up.digest());
      assertThat(gw.isAlive()).as("the gateway ran out of no memory").isTrue();
    } finally {
      gw.destroy();
      if (!gw.waitFor(20, TimeUnit.SECONDS)) {
        gw.destroyForcibly();
      }
    }
  }

  /** Reads the child's output until its "gateway listening on" line (then drains it). */
  private static URI listening(Process gw) throws Exception {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(gw.getInputStream(), StandardCharsets.UTF_8));
    long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    String prefix = "gateway listening on ";
    for (String line; (line = out.readLine()) != null; ) {
      if (line.startsWith(prefix)) {
        Thread drain =
            new Thread(
                () -> {
                  try {
                    for (String l; (l = out.readLine()) != null; ) {
                      System.out.println("[gateway] " + l);
                    }
                  } catch (java.io.IOException e) {
                    // the child ended
                  }
                });
        drain.setDaemon(true);
        drain.start();
        return URI.create(line.substring(prefix.length()).strip());
      }
      System.out.println("[gateway] " + line);
      if (System.nanoTime() > end) {
        break;
      }
    }
    throw new AssertionError("the gateway did not start (exit " + gw.waitFor() + ")");
  }

  /**
   * {@code size} deterministic bytes (a random 1 MiB block, each copy stamped with its number),
   * digested as they are read.
   */
  private static final class Generated extends InputStream {
    private static final byte[] BLOCK = new byte[1 << 20];

    static {
      new Random(17).nextBytes(BLOCK);
    }

    private final long size;
    private final MessageDigest digest;
    private long at;

    Generated(long size, MessageDigest digest) {
      this.size = size;
      this.digest = digest;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (at == size) {
        return -1;
      }
      int inBlock = (int) (at % BLOCK.length);
      int n = (int) Math.min(Math.min(len, BLOCK.length - inBlock), size - at);
      System.arraycopy(BLOCK, inBlock, b, off, n);
      if (inBlock == 0 && n >= 8) {
        long block = at / BLOCK.length;
        for (int i = 0; i < 8; i++) {
          b[off + i] = (byte) (block >>> (8 * i));
        }
      }
      digest.update(b, off, n);
      at += n;
      return n;
    }
  }
}
