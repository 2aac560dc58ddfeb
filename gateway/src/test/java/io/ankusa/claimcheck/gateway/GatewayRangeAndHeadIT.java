package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static io.ankusa.claimcheck.gateway.TestGateways.get;
import static io.ankusa.claimcheck.gateway.TestGateways.random;
import static io.ankusa.claimcheck.gateway.TestGateways.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code Range} of an uncompressed claim is one ranged store read of just those bytes, and a
 * {@code HEAD} transfers no claim bytes (a store HEAD): counted at the fault proxy in front of the
 * real S3 server.
 */
class GatewayRangeAndHeadIT {

  private static final int FOUR_MIB = 4 << 20;

  @TempDir static Path dir;
  static FaultProxy proxy;
  static Gateway gateway;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    String bucket =
        EmbeddedS3.shared().createBucket("gwr-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("claimcheck.tenant", "team-a");
    m.put("claimcheck.write.max.bytes", Integer.toString(8 << 20));
    m.put("claimcheck.read.max.bytes", Integer.toString(8 << 20));
    gateway = Gateway.start(m);
    TestGateways.awaitReady(gateway);
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

  @AfterEach
  void clear() {
    proxy.clear();
  }

  private static String checkIn(byte[] payload, String query) throws Exception {
    return new String(
        TestGateways.checkedIn(http, gateway, payload, query).body(), StandardCharsets.US_ASCII);
  }

  private static HttpRequest.Builder head(String b64) {
    return get(gateway, "/v1/claims/" + b64, TOKEN_A)
        .method("HEAD", HttpRequest.BodyPublishers.noBody());
  }

  private static String b64(ClaimRef ref) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(RefCodec.encode(ref));
  }

  private static ClaimRef missing(int seed) {
    return ClaimRef.of(
        Tenant.of("team-a"),
        new ClaimId(PackId.random(new Random(seed)), 0),
        0,
        FOUR_MIB,
        123,
        Codec.NONE,
        FOUR_MIB);
  }

  @Test
  void aRangedGetOfALargeUncompressedClaimReadsOnlyThatRangeFromTheStore() throws Exception {
    byte[] payload = random(FOUR_MIB);
    String b64 = checkIn(payload, "");
    proxy.resetCounts();

    HttpResponse<byte[]> part =
        send(
            http,
            get(gateway, "/v1/claims/" + b64, TOKEN_A).header("Range", "bytes=1000000-1000099"));

    assertThat(part.statusCode()).isEqualTo(206);
    assertThat(part.body()).isEqualTo(Arrays.copyOfRange(payload, 1_000_000, 1_000_100));
    assertThat(part.headers().firstValue("Content-Range"))
        .hasValue("bytes 1000000-1000099/" + FOUR_MIB);
    assertThat(proxy.requestCount("GET")).as("one store GET").isEqualTo(1);
    assertThat(proxy.responseBytes("GET")).as("of the range alone").isEqualTo(100);

    HttpResponse<byte[]> suffix =
        send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A).header("Range", "bytes=-10"));
    assertThat(suffix.statusCode()).isEqualTo(206);
    assertThat(suffix.body()).isEqualTo(Arrays.copyOfRange(payload, FOUR_MIB - 10, FOUR_MIB));
    assertThat(proxy.responseBytes("GET")).isEqualTo(110);
  }

  @Test
  void aRangeOfACompressedClaimIsCutFromTheVerifiedWholeClaim() throws Exception {
    byte[] payload = new byte[300_000];
    Arrays.fill(payload, (byte) 'z');
    payload[12345] = 7;
    String b64 = checkIn(payload, "?compression=zstd");
    HttpResponse<byte[]> part =
        send(http, get(gateway, "/v1/claims/" + b64, TOKEN_A).header("Range", "bytes=12340-12349"));
    assertThat(part.statusCode()).isEqualTo(206);
    assertThat(part.body()).isEqualTo(Arrays.copyOfRange(payload, 12340, 12350));
    assertThat(part.headers().firstValue("Content-Range")).hasValue("bytes 12340-12349/300000");
  }

  @Test
  void aRangedGetOfAMissingClaimIs404AndWithTheStoreDown503() throws Exception {
    HttpResponse<byte[]> notFound =
        send(
            http,
            get(gateway, "/v1/claims/" + b64(missing(11)), TOKEN_A).header("Range", "bytes=0-9"));
    assertThat(notFound.statusCode()).isEqualTo(404);

    proxy.down();
    HttpResponse<byte[]> down =
        send(
            http,
            get(gateway, "/v1/claims/" + b64(missing(12)), TOKEN_A)
                .header("Range", "bytes=0-9")
                .header("X-Claimcheck-Deadline-Ms", "2000"));
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.headers().firstValue("Retry-After")).isPresent();
  }

  @Test
  void aHeadOfALargeClaimTransfersNoClaimBytesFromTheStore() throws Exception {
    byte[] payload = random(FOUR_MIB + 1);
    String b64 = checkIn(payload, "");
    ClaimRef ref = RefCodec.decode(Base64.getUrlDecoder().decode(b64));
    proxy.resetCounts();

    HttpResponse<byte[]> head = send(http, head(b64));

    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.headers().firstValue("Content-Length"))
        .hasValue(Integer.toString(FOUR_MIB + 1));
    assertThat(head.headers().firstValue("ETag"))
        .hasValue(String.format("\"%08x\"", ref.checksum()));
    assertThat(proxy.requestCount("GET")).as("no store GET").isZero();
    assertThat(proxy.responseBytes("GET")).isZero();
    assertThat(proxy.requestCount("HEAD")).as("a store HEAD").isGreaterThanOrEqualTo(1);

    HttpResponse<byte[]> headRange = send(http, head(b64).header("Range", "bytes=0-99"));
    assertThat(headRange.statusCode()).isEqualTo(206);
    assertThat(headRange.headers().firstValue("Content-Range"))
        .hasValue("bytes 0-99/" + (FOUR_MIB + 1));
    assertThat(headRange.headers().firstValue("Content-Length")).hasValue("100");
    assertThat(proxy.requestCount("GET")).isZero();
  }

  @Test
  void aHeadOfAMissingClaimIs404AndWithTheStoreDown503() throws Exception {
    HttpResponse<byte[]> notFound = send(http, head(b64(missing(21))));
    assertThat(notFound.statusCode()).isEqualTo(404);
    assertThat(proxy.requestCount("HEAD")).as("asked twice").isGreaterThanOrEqualTo(2);

    proxy.down();
    HttpResponse<byte[]> down =
        send(http, head(b64(missing(22))).header("X-Claimcheck-Deadline-Ms", "2000"));
    assertThat(down.statusCode()).as("a store down is never NOT_FOUND").isEqualTo(503);
    assertThat(down.headers().firstValue("Retry-After")).isPresent();
  }
}
