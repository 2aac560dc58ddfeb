package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS: a client certificate the handshake verified acts for the tenant its subject CN maps
 * to in the tokens file ({@code cn:<CN> <tenant> <rights>}); keystores made by the JDK's keytool.
 */
class GatewayMutualTlsIT {

  private static final String PW = "pw-" + UUID.randomUUID();

  @TempDir static Path dir;
  static FaultProxy proxy;
  static String bucket;
  static Path serverKs;
  static Path trust;
  static Path readerA;
  static Path readerBReadOnly;
  static Path unmapped;
  static Path untrusted;
  static Path tokens;

  @BeforeAll
  static void start() throws Exception {
    bucket =
        EmbeddedS3.shared().createBucket("gwm-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    serverKs = keypair("server", "CN=localhost", "san=dns:localhost,ip:127.0.0.1");
    readerA = keypair("client", "CN=reader-a,O=Team A", null);
    readerBReadOnly = keypair("client", "CN=reader-b", null);
    unmapped = keypair("client", "CN=nobody-maps-me", null);
    untrusted = keypair("client", "CN=reader-a", null); // the same CN, not in the trust store
    trust = dir.resolve("trust.p12");
    for (Path client : List.of(readerA, readerBReadOnly, unmapped)) {
      Path crt = dir.resolve(UUID.randomUUID() + ".crt");
      keytool(
          "-exportcert",
          "-alias",
          "client",
          "-keystore",
          client.toString(),
          "-storepass",
          PW,
          "-rfc",
          "-file",
          crt.toString());
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          client.getFileName().toString(),
          "-file",
          crt.toString(),
          "-storetype",
          "PKCS12",
          "-keystore",
          trust.toString(),
          "-storepass",
          PW);
    }
    tokens = TestGateways.tokens(dir);
    Files.writeString(
        tokens,
        "cn:reader-a team-a read,write\ncn:reader-b team-b read\n",
        StandardOpenOption.APPEND);
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private static Path keypair(String alias, String dname, String ext) throws Exception {
    Path ks = dir.resolve(alias + "-" + UUID.randomUUID() + ".p12");
    List<String> args =
        new ArrayList<>(
            List.of(
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dname,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                ks.toString(),
                "-storepass",
                PW,
                "-keypass",
                PW));
    if (ext != null) {
      args.add("-ext");
      args.add(ext);
    }
    keytool(args.toArray(String[]::new));
    return ks;
  }

  private static void keytool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }

  private static KeyStore load(Path p) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p)) {
      ks.load(in, PW.toCharArray());
    }
    return ks;
  }

  /** A client trusting the gateway's certificate, presenting {@code clientKs} (null: none). */
  private static HttpClient client(Path clientKs) throws Exception {
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(load(serverKs));
    KeyManagerFactory kmf = null;
    if (clientKs != null) {
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(load(clientKs), PW.toCharArray());
    }
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(tls).build();
  }

  private static Map<String, Object> config(String clientAuth) {
    Map<String, Object> m = TestGateways.config(proxy, bucket, tokens);
    m.put("gateway.tls.enabled", "true");
    m.put("gateway.listen", "localhost:0");
    m.put("gateway.tls.keystore.path", serverKs.toString());
    m.put("gateway.tls.keystore.password", PW);
    m.put("gateway.tls.client.auth", clientAuth);
    m.put("gateway.tls.truststore.path", trust.toString());
    m.put("gateway.tls.truststore.password", PW);
    return m;
  }

  /** The status of {@code get} with {@code http}, or -1 when the handshake refused it. */
  private static int status(HttpClient http, Gateway g, String path, String token) {
    try {
      return TestGateways.send(http, TestGateways.get(g, path, token)).statusCode();
    } catch (IOException refused) {
      return -1;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aMappedClientCertificateActsForItsTenantWithItsRights() throws Exception {
    try (Gateway g = Gateway.start(config("need"))) {
      HttpClient a = client(readerA);
      byte[] payload = new byte[5000];
      new Random(5).nextBytes(payload);
      HttpResponse<byte[]> posted =
          TestGateways.send(a, TestGateways.post(g, "/v1/claims", null, payload));
      assertThat(posted.statusCode())
          .as(new String(posted.body(), StandardCharsets.UTF_8))
          .isEqualTo(201);
      String b64 = new String(posted.body(), StandardCharsets.US_ASCII);
      HttpResponse<byte[]> got =
          TestGateways.send(a, TestGateways.get(g, "/v1/claims/" + b64, null));
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).isEqualTo(payload);
      assertThat(
              new String(
                  TestGateways.send(a, TestGateways.get(g, "/v1/refs/" + b64, null)).body(),
                  StandardCharsets.UTF_8))
          .contains("\"tenant\":\"team-a\"");

      HttpClient b = client(readerBReadOnly);
      assertThat(status(b, g, "/v1/claims/" + b64, null))
          .as("team-b's certificate may not read team-a's claim")
          .isEqualTo(403);
      assertThat(
              TestGateways.send(b, TestGateways.post(g, "/v1/claims", null, payload)).statusCode())
          .as("a read-only certificate may not check in")
          .isEqualTo(403);

      assertThat(status(client(unmapped), g, "/v1/claims/" + b64, null))
          .as("a trusted certificate whose CN no line maps")
          .isEqualTo(401);
      assertThat(status(client(untrusted), g, "/v1/claims/" + b64, null))
          .as("a certificate the trust store does not hold is refused in the handshake")
          .isEqualTo(-1);
      assertThat(status(client(null), g, "/health/live", null))
          .as("need: no certificate, no connection")
          .isEqualTo(-1);
    }
  }

  @Test
  void wantLetsAClientWithoutACertificateUseABearerToken() throws Exception {
    try (Gateway g = Gateway.start(config("want"))) {
      HttpClient none = client(null);
      byte[] payload = new byte[300];
      HttpResponse<byte[]> posted =
          TestGateways.send(none, TestGateways.post(g, "/v1/claims", TOKEN_A, payload));
      assertThat(posted.statusCode()).isEqualTo(201);
      String b64 = new String(posted.body(), StandardCharsets.US_ASCII);
      assertThat(status(none, g, "/v1/claims/" + b64, null)).isEqualTo(401);
      assertThat(status(client(readerA), g, "/v1/claims/" + b64, null)).isEqualTo(200);
      assertThat(status(client(readerA), g, "/v1/claims/" + b64, "a-bad-token"))
          .as("a bearer token presented is judged, whatever the certificate")
          .isEqualTo(401);
    }
  }

  @Test
  void mutualTlsNeedsATrustStoreAndTls() {
    Map<String, Object> noTrust = config("need");
    noTrust.remove("gateway.tls.truststore.path");
    assertThatThrownBy(() -> new GatewayConfig(noTrust))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("gateway.tls.truststore.path");
    Map<String, Object> plain = TestGateways.config(proxy, bucket, tokens);
    plain.put("gateway.tls.client.auth", "need");
    assertThatThrownBy(() -> new GatewayConfig(plain))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("gateway.tls.client.auth");
    Map<String, Object> bad = config("sometimes");
    assertThatThrownBy(() -> new GatewayConfig(bad))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("gateway.tls.client.auth");
  }
}
