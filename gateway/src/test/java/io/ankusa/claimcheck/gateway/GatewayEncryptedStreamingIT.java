package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static io.ankusa.claimcheck.gateway.TestGateways.get;
import static io.ankusa.claimcheck.gateway.TestGateways.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An encrypting tenant's claims past the write limit stream through the gateway sealed (issues 17
 * and 19): a POST stores an envelope of segments (ref version 5) holding none of a planted
 * plaintext marker, a GET streams the decrypted claim back, a Range gets the whole claim, and a
 * damaged object is an aborted response, never a complete body. Over a file store, so a test can
 * read and damage the stored object in place.
 */
class GatewayEncryptedStreamingIT {

  private static final int LIMIT = 1 << 20;
  private static final byte[] MARKER =
      "PLANTED-MARKER-GATEWAY-19".getBytes(StandardCharsets.US_ASCII);

  @TempDir static Path dir;
  static Path root;
  static Gateway gateway;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    root = dir.resolve("store");
    Files.createDirectories(root);
    Files.writeString(root.resolve(".claimcheck-store"), "");
    Path key = dir.resolve("kek.json");
    Files.writeString(key, LocalKekProvider.newKeyFile());
    Map<String, Object> m = new java.util.HashMap<>();
    m.put("claimcheck.stores", root.toUri().toString());
    m.put("gateway.listen", "127.0.0.1:0");
    m.put("gateway.tls.enabled", "false");
    m.put("gateway.tokens.file", TestGateways.tokens(dir).toString());
    m.put("claimcheck.tenant", "team-a");
    m.put("claimcheck.write.max.bytes", Integer.toString(LIMIT));
    m.put("claimcheck.read.max.bytes", Integer.toString(LIMIT));
    m.put("claimcheck.stream.max.bytes", Integer.toString(64 << 20));
    m.put("claimcheck.encryption.kek", "local:" + key);
    m.put("claimcheck.encryption.required", "true");
    gateway = Gateway.start(m);
    TestGateways.awaitReady(gateway);
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static byte[] marked(int n) {
    byte[] v = new byte[n];
    new Random(n).nextBytes(v);
    for (int at = 0; at + MARKER.length <= n; at += 50_000) {
      System.arraycopy(MARKER, 0, v, at, MARKER.length);
    }
    return v;
  }

  private static ClaimRef post(byte[] body) throws Exception {
    HttpResponse<byte[]> created =
        send(
            http,
            HttpRequest.newBuilder(URI.create(gateway.uri() + "/v1/claims"))
                .header("Authorization", "Bearer " + TOKEN_A)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    assertThat(created.statusCode())
        .as(new String(created.body(), StandardCharsets.UTF_8))
        .isEqualTo(201);
    return RefCodec.decode(
        Base64.getUrlDecoder().decode(new String(created.body(), StandardCharsets.US_ASCII)));
  }

  private static String path(ClaimRef ref) {
    return "/v1/claims/"
        + Base64.getUrlEncoder().withoutPadding().encodeToString(RefCodec.encode(ref));
  }

  private static Path file(ClaimRef ref) {
    return root.resolve("team-a").resolve(ref.packId().hex());
  }

  @Test
  void aPostPastTheWriteLimitIsSealedAndAGetStreamsItBackDecrypted() throws Exception {
    byte[] value = marked(6 << 20);
    ClaimRef ref = post(value);
    assertThat(ref.version()).isEqualTo(ClaimRef.STREAMED_ENCRYPTED_VERSION);
    assertThat(ref.rawLength()).isEqualTo(value.length);
    byte[] stored = Files.readAllBytes(file(ref));
    assertThat(stored).hasSize((int) ref.length());
    assertThat(indexOf(stored, MARKER)).as("the marker in the stored object").isEqualTo(-1);
    HttpResponse<byte[]> got = send(http, get(gateway, path(ref), TOKEN_A));
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.headers().firstValueAsLong("Content-Length")).hasValue(value.length);
    assertThat(got.body()).isEqualTo(value);
    HttpResponse<byte[]> ranged =
        send(http, get(gateway, path(ref), TOKEN_A).header("Range", "bytes=1000-1999"));
    assertThat(ranged.statusCode()).as("a range of it is the whole claim").isEqualTo(200);
    assertThat(ranged.body()).isEqualTo(value);
  }

  @Test
  void aDamagedSealedClaimIsAnAbortedResponseNeverACompleteBody() throws Exception {
    byte[] value = marked(5 << 20);
    ClaimRef ref = post(value);
    try (RandomAccessFile f = new RandomAccessFile(file(ref).toFile(), "rw")) {
      f.seek(ref.length() / 2);
      int b = f.read();
      f.seek(ref.length() / 2);
      f.write(b ^ 0x20);
    }
    TestGateways.Received r = TestGateways.receive(http, get(gateway, path(ref), TOKEN_A));
    assertThat(r.status()).isEqualTo(200);
    byte[] served = r.body();
    assertThat(served.length).as("never the whole body").isLessThan(value.length);
    assertThat(served).isEqualTo(java.util.Arrays.copyOf(value, served.length));
    assertThat(r.broken()).as("a broken transfer").isNotNull();
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
