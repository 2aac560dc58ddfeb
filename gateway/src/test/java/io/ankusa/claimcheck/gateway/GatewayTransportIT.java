package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS with a PKCS12 keystore made in the test; hostile input: long paths, headers, slow loris. */
class GatewayTransportIT {

  @TempDir static Path dir;
  static FaultProxy proxy;
  static String bucket;

  @BeforeAll
  static void start() {
    bucket =
        EmbeddedS3.shared().createBucket("gwt-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private static Path keystore(String password) throws Exception {
    Path ks = dir.resolve("gateway-" + UUID.randomUUID() + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p =
        new ProcessBuilder(
                keytool,
                "-genkeypair",
                "-alias",
                "gateway",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-ext",
                "san=dns:localhost,ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                ks.toString(),
                "-storepass",
                password,
                "-keypass",
                password)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return ks;
  }

  @Test
  void servesHttpsFromAPkcs12KeystoreAndRoundTripsAClaim() throws Exception {
    String password = "pw-" + UUID.randomUUID();
    Path ks = keystore(password);
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("gateway.tls.enabled", "true");
    m.put("gateway.listen", "localhost:0");
    m.put("gateway.tls.keystore.path", ks.toString());
    m.put("gateway.tls.keystore.password", password);
    try (Gateway g = Gateway.start(m)) {
      assertThat(g.uri().toString()).startsWith("https://localhost:");
      KeyStore trust = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(ks)) {
        trust.load(in, password.toCharArray());
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, tmf.getTrustManagers(), null);
      HttpClient https = HttpClient.newBuilder().sslContext(tls).build();

      byte[] payload = new byte[12_345];
      new Random(1).nextBytes(payload);
      HttpResponse<byte[]> posted =
          TestGateways.send(https, TestGateways.post(g, "/v1/claims", TOKEN_A, payload));
      assertThat(posted.statusCode()).isEqualTo(201);
      String b64 = new String(posted.body(), StandardCharsets.US_ASCII);
      HttpResponse<byte[]> got =
          TestGateways.send(https, TestGateways.get(g, "/v1/claims/" + b64, TOKEN_A));
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).isEqualTo(payload);

      // A plain-HTTP request on the TLS port gets no claim.
      HttpClient plain = HttpClient.newHttpClient();
      URI clear = URI.create("http://localhost:" + g.uri().getPort() + "/health/live");
      int status;
      try {
        status =
            plain
                .send(
                    HttpRequest.newBuilder(clear).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode();
      } catch (java.io.IOException refused) {
        status = -1;
      }
      assertThat(status).isNotEqualTo(200);
    }
  }

  @Test
  void aClientThatStopsReadingMidBodyIsCutAtTheIdleTimeoutAndGivesItsPermitBack() throws Exception {
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("gateway.idle.timeout.ms", "3000");
    m.put("claimcheck.max.concurrent.reads", "1");
    try (Gateway g = Gateway.start(m)) {
      HttpClient http = HttpClient.newHttpClient();
      byte[] big = new byte[12 << 20]; // more than loopback's socket buffers hold
      new Random(5).nextBytes(big);
      HttpResponse<byte[]> posted =
          TestGateways.send(http, TestGateways.post(g, "/v1/claims", TOKEN_A, big));
      assertThat(posted.statusCode()).isEqualTo(201);
      String b64 = new String(posted.body(), StandardCharsets.US_ASCII);
      // The POST gives its permit back once its answer is written, which may be just after this
      // client read it: a GET sent at once could be shed (a 503 that frees the gate at once).
      io.ankusa.claimcheck.ClaimCheck.RequestPermit free = awaitPermit(g, Duration.ofSeconds(10));
      assertThat(free).as("the POST gave its gate permit back").isNotNull();
      free.close();
      try (Socket s = new Socket("127.0.0.1", g.uri().getPort())) {
        s.setReceiveBufferSize(4096);
        s.getOutputStream()
            .write(
                ("GET /v1/claims/"
                        + b64
                        + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                        + TOKEN_A
                        + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        byte[] first = new byte[64];
        int n = s.getInputStream().readNBytes(first, 0, first.length);
        assertThat(new String(first, 0, n, StandardCharsets.US_ASCII))
            .as("the answer started")
            .startsWith("HTTP/1.1 200 ");
        // ... and the client reads no more. The gateway's write stalls, holding its permit...
        io.ankusa.claimcheck.ClaimCheck.RequestPermit held = g.claimCheck().admitRequest();
        assertThat(held).as("the stalled answer holds the gate's one permit").isNull();
        // ... until the idle timeout cuts the connection.
        io.ankusa.claimcheck.ClaimCheck.RequestPermit p = awaitPermit(g, Duration.ofSeconds(60));
        assertThat(p).as("the stalled answer gave its gate permit back").isNotNull();
        p.close();
      }
      HttpResponse<byte[]> again =
          TestGateways.send(http, TestGateways.get(g, "/v1/claims/" + b64, TOKEN_A));
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(again.body()).isEqualTo(big);
    }
  }

  /** Takes a permit of the gate once one is free, waiting up to {@code wait}; null if none was. */
  private static io.ankusa.claimcheck.ClaimCheck.RequestPermit awaitPermit(Gateway g, Duration wait)
      throws InterruptedException {
    long end = System.nanoTime() + wait.toNanos();
    io.ankusa.claimcheck.ClaimCheck.RequestPermit p;
    while ((p = g.claimCheck().admitRequest()) == null && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    return p;
  }

  /** Sends {@code request} on a fresh connection and returns the answer's status. */
  private static int rawStatus(int port, String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      String line =
          new java.io.BufferedReader(
                  new java.io.InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      assertThat(line).startsWith("HTTP/1.1 ");
      return Integer.parseInt(line.substring(9, 12));
    }
  }

  @Test
  void oversizedPathsAndHeadersAre4xxAndSlowLorisIsCutAtTheIdleTimeout() throws Exception {
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("gateway.idle.timeout.ms", "500");
    try (Gateway g = Gateway.start(m)) {
      HttpClient http = HttpClient.newHttpClient();
      int port = g.uri().getPort();
      assertThat(
              rawStatus(
                  port, "GET /v1/claims/" + "A".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"))
          .isEqualTo(414);
      assertThat(
              rawStatus(
                  port,
                  "GET /v1/claims/AAAA HTTP/1.1\r\nHost: x\r\nX-Junk: "
                      + "j".repeat(20_000)
                      + "\r\n\r\n"))
          .isEqualTo(431);
      HttpResponse<byte[]> longToken =
          TestGateways.send(http, TestGateways.get(g, "/v1/claims/AAAA", "t".repeat(6000)));
      assertThat(longToken.statusCode()).isEqualTo(401);

      // Slow loris: half a request, then silence. The gateway closes the connection.
      try (Socket s = new Socket("127.0.0.1", g.uri().getPort())) {
        s.setSoTimeout(30_000);
        OutputStream out = s.getOutputStream();
        out.write(
            "GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        long start = System.nanoTime();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) >= 0) {
          assertThat(n).isPositive(); // a 408/400 answer, then the close
        }
        long ms = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertThat(ms).as("closed by the 500 ms idle timeout, well before 30 s").isLessThan(20_000);
      }
    }
  }
}
