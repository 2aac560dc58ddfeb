package io.ankusa.claimcheck.benchmarks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The gateway measurements wrk cannot make: latencies by status (shed {@code 503}s apart from
 * admitted {@code 200}s) and a burst of concurrent GETs of one ref, each client on a connection of
 * its own ({@link RawGet}); check-ins and {@code /metrics} through Java's HTTP client. Thread-safe:
 * each call uses its own threads.
 */
final class GatewayLoad {

  /** Latencies in ms of {@code 200} and of {@code 503} answers, sorted. */
  record Latencies(List<Double> admitted, List<Double> shed, int other) {
    static double percentile(List<Double> sorted, double p) {
      return sorted.isEmpty()
          ? -1
          : sorted.get((int) Math.min(sorted.size() - 1, p * sorted.size()));
    }
  }

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String token;

  GatewayLoad(String token) {
    this.token = token;
  }

  /**
   * Checks in {@code n} distinct random claims of {@code size} bytes (seeds 0 to n - 1); returns
   * their {@code /v1/claims/{ref}} paths, in order.
   */
  List<String> checkInClaims(URI gateway, int size, int n) throws Exception {
    List<String> paths = new ArrayList<>(n);
    for (int j = 0; j < n; j++) {
      paths.add("/v1/claims/" + checkIn(gateway, GatewayHarness.random(size, j)));
    }
    return paths;
  }

  /** POSTs {@code body}; returns the base64url ref. */
  String checkIn(URI gateway, byte[] body) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(gateway.resolve("/v1/claims"))
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .timeout(Duration.ofSeconds(60))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("check-in: " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  /** The sum of {@code claimcheck_read_total{outcome="store"}}: reader fetches that went out. */
  double storeFetches(URI gateway) throws Exception {
    String text =
        http.send(
                HttpRequest.newBuilder(gateway.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("claimcheck_read_total{") && line.contains("outcome=\"store\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** {@code n} GETs of {@code path}, each on its own open connection, released at once. */
  int burst(URI gateway, String path, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    List<RawGet> clients = new ArrayList<>();
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        RawGet c = new RawGet(gateway, token);
        clients.add(c);
        c.get("/health/live"); // connected before the burst
        answers.add(
            pool.submit(
                () -> {
                  go.await();
                  return c.get(path);
                }));
      }
      go.countDown();
      int ok = 0;
      for (Future<Integer> a : answers) {
        ok += a.get() == 200 ? 1 : 0;
      }
      return ok;
    } finally {
      pool.shutdownNow();
      clients.forEach(RawGet::close);
    }
  }

  /**
   * {@code clients} loops GETting {@code path} for {@code seconds}; latencies by status. A client
   * answered {@code 503} waits {@code backoffMs} before its next GET (as the shipped clients honour
   * {@code Retry-After}); 0: it asks again at once (a client that hammers).
   */
  Latencies load(URI gateway, String path, int clients, int seconds, long backoffMs)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Double> admitted = Collections.synchronizedList(new ArrayList<>());
    List<Double> shed = Collections.synchronizedList(new ArrayList<>());
    int[] other = {0};
    long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    try {
      List<Future<?>> loops = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        loops.add(
            pool.submit(
                () -> {
                  try (RawGet c = new RawGet(gateway, token)) {
                    while (System.nanoTime() < end) {
                      long t0 = System.nanoTime();
                      int status = c.get(path);
                      double ms = (System.nanoTime() - t0) / 1e6;
                      if (status == 200) {
                        admitted.add(ms);
                      } else if (status == 503) {
                        shed.add(ms);
                        if (backoffMs > 0) {
                          Thread.sleep(
                              Math.min(
                                  backoffMs, Math.max(0, (end - System.nanoTime()) / 1_000_000)));
                        }
                      } else {
                        synchronized (other) {
                          other[0]++;
                        }
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : loops) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    List<Double> a = new ArrayList<>(admitted);
    List<Double> s = new ArrayList<>(shed);
    Collections.sort(a);
    Collections.sort(s);
    return new Latencies(a, s, other[0]);
  }
}
