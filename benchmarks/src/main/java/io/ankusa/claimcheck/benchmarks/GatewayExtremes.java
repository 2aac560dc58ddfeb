package io.ankusa.claimcheck.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The gateway figures of issue 17 that are not about throughput: a store that hangs (a black-hole
 * endpoint that accepts connections and never answers) against many concurrent GETs — their latency
 * against the read deadline and the gateway's thread count — and a claim larger than the gateway's
 * heap up and down through a gateway under {@code -Xmx256m} over a file store. Each call starts its
 * own gateway in {@link GatewayProcesses}; not thread-safe.
 */
final class GatewayExtremes {

  private GatewayExtremes() {}

  /** {@code n} concurrent GETs of {@code path} from a gateway whose store never answers. */
  static void hungStore(GatewayProcesses rig, String path, int n, long deadlineMs, int leads)
      throws Exception {
    String name = "hung-" + leads;
    List<Socket> held = Collections.synchronizedList(new ArrayList<>());
    try (ServerSocket hole = new ServerSocket(0, 1024, java.net.InetAddress.getLoopbackAddress())) {
      Thread accept =
          new Thread(
              () -> {
                try {
                  while (true) {
                    held.add(hole.accept()); // held open, never read, never answered
                  }
                } catch (IOException closed) {
                  // the harness is done with it
                }
              });
      accept.setDaemon(true);
      accept.start();
      URI gw =
          rig.startGateway(
              name,
              Map.of(
                  "claimcheck.s3.endpoint",
                  "http://127.0.0.1:" + hole.getLocalPort(),
                  "claimcheck.read.deadline.ms",
                  Long.toString(deadlineMs),
                  "claimcheck.cache.max.bytes",
                  "0",
                  "gateway.inline.leads",
                  Integer.toString(leads)));
      int idleThreads = rig.threads(name);
      ExecutorService pool = Executors.newFixedThreadPool(n);
      List<RawGet> clients = new ArrayList<>();
      try {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<double[]>> answers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          RawGet c = new RawGet(gw, rig.token);
          clients.add(c);
          c.get("/health/live"); // connected before the burst
          answers.add(
              pool.submit(
                  () -> {
                    go.await();
                    long t0 = System.nanoTime();
                    int status = c.get(path);
                    return new double[] {status, (System.nanoTime() - t0) / 1e6};
                  }));
        }
        go.countDown();
        int most = idleThreads;
        while (!answers.stream().allMatch(Future::isDone)) {
          most = Math.max(most, rig.threads(name));
          Thread.sleep(50);
        }
        double[] ms = new double[n];
        int unavailable = 0;
        for (int i = 0; i < n; i++) {
          double[] a = answers.get(i).get();
          unavailable += a[0] == 503 ? 1 : 0;
          ms[i] = a[1];
        }
        Arrays.sort(ms);
        System.out.printf(
            "%nhung store (accepts, never answers), gateway.inline.leads=%d, read deadline %d ms:"
                + " %d concurrent GETs of one ref, %d"
                + " answered 503, in p50 %.0f ms, max %.0f ms; gateway threads %d before, at most"
                + " %d during (goal: the deadline, not a thread per request)%n",
            leads, deadlineMs, n, unavailable, ms[n / 2], ms[n - 1], idleThreads, most);
      } finally {
        pool.shutdownNow();
        clients.forEach(RawGet::close);
        for (Socket s : held) {
          s.close();
        }
      }
    }
  }

  /** A claim of {@code size} bytes POSTed and GOT back through a gateway under {@code xmx}. */
  static void bigClaim(GatewayProcesses rig, Path dir, long size, String xmx) throws Exception {
    Path root = Files.createDirectories(dir.resolve("big-store"));
    Files.writeString(root.resolve(".claimcheck-store"), "");
    URI gw =
        rig.startGateway(
            "big",
            Map.of(
                "claimcheck.stores", root.toUri().toString(),
                "claimcheck.stream.max.bytes", Long.toString(2 * size)),
            List.of(xmx, "-XX:+ExitOnOutOfMemoryError"));
    HttpClient http = HttpClient.newHttpClient();
    MessageDigest up = MessageDigest.getInstance("SHA-256");
    long t0 = System.nanoTime();
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(gw.resolve("/v1/claims"))
                .header("Authorization", "Bearer " + rig.token)
                .timeout(Duration.ofMinutes(30))
                .POST(
                    HttpRequest.BodyPublishers.fromPublisher(
                        HttpRequest.BodyPublishers.ofInputStream(() -> new Generated(size, up)),
                        size))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    double upS = (System.nanoTime() - t0) / 1e9;
    if (created.statusCode() != 201) {
      System.out.printf(
          "%n%d MiB claim under %s: POST answered %d %s%n",
          size >> 20, xmx, created.statusCode(), created.body());
      return;
    }
    t0 = System.nanoTime();
    HttpResponse<InputStream> got =
        http.send(
            HttpRequest.newBuilder(gw.resolve("/v1/claims/" + created.body()))
                .header("Authorization", "Bearer " + rig.token)
                .timeout(Duration.ofMinutes(30))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    MessageDigest down = MessageDigest.getInstance("SHA-256");
    long n = 0;
    try (InputStream in = got.body()) {
      byte[] buf = new byte[1 << 16];
      for (int r; (r = in.read(buf)) >= 0; ) {
        down.update(buf, 0, r);
        n += r;
      }
    }
    double downS = (System.nanoTime() - t0) / 1e9;
    System.out.printf(
        "%n%d MiB claim through a gateway under %s (file store): up %.0f s (%.0f MiB/s), down %.0f"
            + " s (%.0f MiB/s), GET %d, %d bytes, SHA-256 %s; gateway %s%n",
        size >> 20,
        xmx,
        upS,
        (size >> 20) / upS,
        downS,
        (n >> 20) / downS,
        got.statusCode(),
        n,
        Arrays.equals(up.digest(), down.digest()) ? "equal" : "DIFFERENT",
        rig.alive("big") ? "alive (no OOM)" : "DEAD");
  }

  /** {@code size} pseudo-random bytes, digested as they are read. */
  private static final class Generated extends InputStream {
    private final MessageDigest digest;
    private final java.util.Random random = new java.util.Random(17);
    private long left;

    Generated(long size, MessageDigest digest) {
      this.left = size;
      this.digest = digest;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (left == 0) {
        return -1;
      }
      int n = (int) Math.min(len, left);
      byte[] chunk = new byte[n];
      random.nextBytes(chunk);
      System.arraycopy(chunk, 0, b, off, n);
      digest.update(chunk);
      left -= n;
      return n;
    }
  }
}
