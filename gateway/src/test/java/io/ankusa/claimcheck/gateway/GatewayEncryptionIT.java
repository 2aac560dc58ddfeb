package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_B;
import static io.ankusa.claimcheck.gateway.TestGateways.get;
import static io.ankusa.claimcheck.gateway.TestGateways.post;
import static io.ankusa.claimcheck.gateway.TestGateways.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.testkit.Planted;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway with a {@code local:} KEK for tenant team-a only (issue 19), over S3Proxy behind the
 * fault proxy: team-a's POSTed claims come back byte for byte (whole and ranged), and S3Proxy holds
 * them compressed, then encrypted, with none of a planted marker, while team-b's stay plaintext; a
 * ref the serializer wrote encrypted is served decrypted; a gateway without the KEK answers a
 * problem naming it, never the ciphertext.
 */
class GatewayEncryptionIT {

  @TempDir static Path dir;
  static String bucket;
  static FaultProxy proxy;
  static Path tokens;
  static String kek;
  static Gateway gateway;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    bucket =
        EmbeddedS3.shared().createBucket("gw-enc-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    tokens = TestGateways.tokens(dir);
    Path key = dir.resolve("team-a.key");
    Files.writeString(key, LocalKekProvider.newKeyFile());
    kek = "local:" + key;
    Map<String, Object> m = config();
    m.put("claimcheck.encryption.tenant.team-a.kek", kek);
    gateway = Gateway.start(m);
    TestGateways.awaitReady(gateway);
  }

  static Map<String, Object> config() {
    Map<String, Object> m = TestGateways.config(proxy, bucket, tokens);
    m.put("claimcheck.tenant", "team-a");
    m.put("claimcheck.write.max.bytes", Integer.toString(1 << 20));
    m.put("claimcheck.read.max.bytes", Integer.toString(1 << 20));
    return m;
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  private static String checkIn(String token, byte[] payload, String codec) throws Exception {
    HttpResponse<byte[]> r =
        send(http, post(gateway, "/v1/claims?compression=" + codec, token, payload));
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(201);
    return new String(r.body(), StandardCharsets.US_ASCII);
  }

  private static ClaimRef ref(String b64) {
    return RefCodec.decode(java.util.Base64.getUrlDecoder().decode(b64));
  }

  @Test
  void anEncryptedTenantsClaimsRoundTripAndS3HoldsThemOnlyAsCompressedCiphertext()
      throws Exception {
    int[] sizes = {5_000, 300_000};
    String[] codecs = {"none", "zstd"};
    String[] refs = new String[2 * sizes.length];
    for (int i = 0; i < refs.length; i++) {
      refs[i] = checkIn(TOKEN_A, Planted.value(sizes[i % 2], i % 2), codecs[i / 2]);
      assertThat(ref(refs[i]).isEncrypted()).isTrue();
      assertThat(ref(refs[i]).codec()).isEqualTo(i < 2 ? Codec.NONE : Codec.ZSTD);
    }
    Map<String, byte[]> plain = new java.util.TreeMap<>();
    Map<String, byte[]> compressed = new java.util.TreeMap<>();
    for (int i = 0; i < refs.length; i++) {
      byte[] value = Planted.value(sizes[i % 2], i % 2);
      HttpResponse<byte[]> got = send(http, get(gateway, "/v1/claims/" + refs[i], TOKEN_A));
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).as("claim %d", i).isEqualTo(value);
      // The answer's length is the claim's, not its envelope's (the ref's stored length).
      assertThat(got.headers().firstValue("Content-Length")).hasValue("" + value.length);
      HttpResponse<byte[]> head =
          send(
              http,
              get(gateway, "/v1/claims/" + refs[i], TOKEN_A)
                  .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody()));
      assertThat(head.headers().firstValue("Content-Length")).hasValue("" + value.length);
      HttpResponse<byte[]> tail =
          send(http, get(gateway, "/v1/claims/" + refs[i], TOKEN_A).header("Range", "bytes=-5"));
      assertThat(tail.statusCode()).isEqualTo(206);
      assertThat(tail.body()).isEqualTo(Arrays.copyOfRange(value, value.length - 5, value.length));
      HttpResponse<byte[]> part =
          send(
              http,
              get(gateway, "/v1/claims/" + refs[i], TOKEN_A).header("Range", "bytes=1000-1999"));
      assertThat(part.statusCode()).isEqualTo(206);
      assertThat(part.body()).isEqualTo(Arrays.copyOfRange(value, 1000, 2000));
      String key = "team-a/" + ref(refs[i]).packId().hex();
      (i < 2 ? plain : compressed).putAll(EmbeddedS3.shared().objects(bucket, key));
    }
    assertThat(plain).hasSize(sizes.length);
    assertThat(compressed).hasSize(sizes.length);
    assertThat(Planted.notCiphertext(plain)).isEmpty();
    assertThat(Planted.notCompressedCiphertext(compressed, Arrays.stream(sizes).sum())).isEmpty();

    // Team-b has no KEK: its claim is stored as compressed plaintext, marker and all.
    assertThat(ref(checkIn(TOKEN_B, Planted.value(5_000, 7), "none")).isEncrypted()).isFalse();
    assertThat(Planted.withMarker(EmbeddedS3.shared().objects(bucket, "team-b/"))).hasSize(1);
  }

  @Test
  void aRefTheSerializerWroteEncryptedIsServedDecrypted() throws Exception {
    Map<String, Object> writer = config();
    writer.put("claimcheck.encryption.kek", kek);
    writer.put("claimcheck.compression.type", "gzip");
    byte[] value = Planted.value(400_000, 11);
    byte[] wire;
    try (ClaimCheckSerializer<byte[]> s = new ClaimCheckSerializer<>()) {
      s.configure(writer, false);
      wire = s.serialize("topic", value);
    }
    ClaimRef ref = RefCodec.decode(wire);
    assertThat(ref.isEncrypted()).isTrue();
    String b64 = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(wire);
    HttpResponse<byte[]> got = send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A));
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(value);
    byte[] stored =
        EmbeddedS3.shared().objects(bucket, "team-a/" + ref.packId().hex()).values().stream()
            .findFirst()
            .orElseThrow();
    assertThat(Planted.notCompressedCiphertext(Map.of("pack", stored), value.length)).isEmpty();
  }

  @Test
  void aGatewayWithoutTheKekAnswersAProblemNamingItAndNeverTheCiphertext() throws Exception {
    String b64 = checkIn(TOKEN_A, Planted.value(50_000, 3), "none");
    try (Gateway without = Gateway.start(config())) {
      TestGateways.awaitReady(without);
      HttpResponse<byte[]> got = send(http, get(without, "/v1/claims/" + b64, TOKEN_A));
      assertThat(got.statusCode()).isEqualTo(403);
      assertThat(got.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(new String(got.body(), StandardCharsets.UTF_8))
          .contains("\"reason\":\"REFUSED\"")
          .contains("encrypted under KEK " + kek);
    }
  }
}
