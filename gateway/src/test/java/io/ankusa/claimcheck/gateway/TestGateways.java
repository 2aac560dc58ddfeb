package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/** Gateways over the embedded S3 server behind a fault proxy, for the ITs; not thread-safe. */
final class TestGateways {

  static final String TOKEN_A = "token-for-team-a-" + UUID.randomUUID();
  static final String TOKEN_B = "token-for-team-b-" + UUID.randomUUID();
  static final String TOKEN_A_WRITE_ONLY = "write-only-a-" + UUID.randomUUID();

  private TestGateways() {}

  /** A tokens file: A read+write, B read+write, A write-only. */
  static Path tokens(Path dir) throws IOException {
    Path f = dir.resolve("tokens-" + UUID.randomUUID() + ".txt");
    Files.writeString(
        f,
        "# hashed tokens\n"
            + Tokens.hashHex(TOKEN_A)
            + " team-a read,write\n"
            + Tokens.hashHex(TOKEN_B)
            + " team-b read,write\n"
            + Tokens.hashHex(TOKEN_A_WRITE_ONLY)
            + " team-a write\n");
    return f;
  }

  /** A plain-HTTP gateway config on a free loopback port over {@code proxy}'s bucket. */
  static Map<String, Object> config(FaultProxy proxy, String bucket, Path tokens) {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    Map<String, Object> m = s3.claimCheckConfig("s3://" + bucket, proxy.endpoint());
    m.put("claimcheck.store.op.deadline.ms", "30000");
    m.put("claimcheck.store.cooldown.ms", "200");
    m.put("gateway.listen", "127.0.0.1:0");
    m.put("gateway.tls.enabled", "false");
    m.put("gateway.tokens.file", tokens.toString());
    m.put("gateway.tokens.reload.ms", "100");
    return m;
  }

  /** Waits (up to a minute) until the gateway's readiness probe passed. */
  static void awaitReady(Gateway g) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (!g.ready()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("the gateway did not become ready");
      }
      Thread.sleep(50);
    }
  }

  static HttpResponse<byte[]> send(HttpClient http, HttpRequest.Builder r) throws Exception {
    return http.send(
        r.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static HttpRequest.Builder get(Gateway g, String path, String token) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(g.uri() + path)).GET();
    return token == null ? b : b.header("Authorization", "Bearer " + token);
  }

  static HttpRequest.Builder post(Gateway g, String path, String token, byte[] body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(g.uri() + path))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    return token == null ? b : b.header("Authorization", "Bearer " + token);
  }

  /** {@code n} bytes, the same for the same {@code n}. */
  static byte[] random(int n) {
    byte[] b = new byte[n];
    new java.util.Random(n).nextBytes(b);
    return b;
  }

  /** POSTs {@code payload} as tenant A; asserts 201 and returns the answer (the base64url ref). */
  static HttpResponse<byte[]> checkedIn(HttpClient http, Gateway g, byte[] payload, String query)
      throws Exception {
    HttpResponse<byte[]> r = send(http, post(g, "/v1/claims" + query, TOKEN_A, payload));
    org.assertj.core.api.Assertions.assertThat(r.statusCode())
        .as(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(201);
    return r;
  }

  /**
   * What a client read of an answer: its status, its Content-Length (-1: none), the bytes it got
   * and how the transfer broke (null: it did not).
   */
  record Received(int status, long contentLength, byte[] body, java.io.IOException broken) {}

  /** Sends {@code r} and reads its body to the end or until the transfer breaks. */
  static Received receive(HttpClient http, HttpRequest.Builder r) throws Exception {
    HttpResponse<java.io.InputStream> answer =
        http.send(
            r.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofInputStream());
    java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
    java.io.IOException broken = null;
    try (java.io.InputStream in = answer.body()) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) >= 0; ) {
        got.write(buf, 0, n);
      }
    } catch (java.io.IOException e) {
      broken = e;
    }
    return new Received(
        answer.statusCode(),
        answer.headers().firstValueAsLong("Content-Length").orElse(-1),
        got.toByteArray(),
        broken);
  }
}
