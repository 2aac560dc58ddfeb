package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static io.ankusa.claimcheck.gateway.TestGateways.get;
import static io.ankusa.claimcheck.gateway.TestGateways.random;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A packed claim above {@link EarlyAnswer#MIN_BYTES} is sent to the client as its store read
 * arrives, over S3Proxy behind the fault proxy: every byte when the claim verifies; when it does
 * not (a read damaged in transit, a ref whose checksum the stored bytes fail), a broken transfer —
 * never the whole body — and the next request of that claim is answered whole, with its reason.
 */
class GatewayEarlyAnswerIT {

  @TempDir static Path dir;
  static FaultProxy proxy;
  static Gateway gateway;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    String bucket =
        EmbeddedS3.shared().createBucket("gwea-" + UUID.randomUUID().toString().substring(0, 8));
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("claimcheck.tenant", "team-a");
    m.put("claimcheck.write.max.bytes", Integer.toString(2 << 20));
    m.put("claimcheck.read.max.bytes", Integer.toString(2 << 20));
    m.put("claimcheck.cache.max.bytes", "0"); // every GET a store read
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

  private static String checkIn(byte[] value) throws Exception {
    HttpResponse<byte[]> r = TestGateways.checkedIn(http, gateway, value, "");
    String b64 = new String(r.body(), StandardCharsets.US_ASCII);
    assertThat(ref(b64).isStreamed()).as("a packed claim").isFalse();
    return b64;
  }

  private static ClaimRef ref(String b64) {
    return RefCodec.decode(Base64.getUrlDecoder().decode(b64));
  }

  private static String b64(ClaimRef ref) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(RefCodec.encode(ref));
  }

  private static TestGateways.Received read(String path) throws Exception {
    return TestGateways.receive(http, get(gateway, path, TOKEN_A));
  }

  @Test
  void claimsAroundTheThresholdsAreServedByteForByte() throws Exception {
    for (int size :
        new int[] {EarlyAnswer.MIN_BYTES, EarlyAnswer.MIN_BYTES + 1, 256 << 10, 1 << 20}) {
      byte[] value = random(size);
      String path = "/v1/claims/" + checkIn(value);
      for (int i = 0; i < 3; i++) {
        TestGateways.Received r = read(path);
        assertThat(r.broken()).as("size %d", size).isNull();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentLength()).isEqualTo(size);
        assertThat(r.body()).as("size %d, GET %d", size, i).isEqualTo(value);
      }
    }
  }

  @Test
  void aReadDamagedInTransitIsABrokenTransferThenTheNextGetServesTheClaim() throws Exception {
    byte[] value = random(256 << 10);
    String path = "/v1/claims/" + checkIn(value);
    proxy.resetCounts();
    // The first store GET comes back with every byte flipped; the reader's second look reads the
    // stored bytes, which verify: the bytes already sent are not the claim's.
    proxy.failTimes(1, Fault.corruptBody(), "GET");
    TestGateways.Received first = read(path);
    assertThat(proxy.failuresLeft()).as("the damaged GET was served").isZero();
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.broken()).as("a broken transfer").isNotNull();
    assertThat(first.body().length).as("never the whole body").isLessThan(value.length);
    assertThat(proxy.requestCount("GET")).as("the damaged read, then the second look").isEqualTo(2);

    TestGateways.Received again = read(path);
    assertThat(again.broken()).isNull();
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(value);
  }

  @Test
  void aClaimThatFailsItsChecksumIsABrokenTransferThenACorruptAnswer() throws Exception {
    byte[] value = random((256 << 10) + 7);
    ClaimRef good = ref(checkIn(value));
    ClaimRef wrong =
        new ClaimRef(
            good.version(),
            good.tenant(),
            good.claimId(),
            good.offset(),
            good.length(),
            good.checksum() ^ 1,
            good.codec(),
            good.rawLength());
    String path = "/v1/claims/" + b64(wrong);
    TestGateways.Received first = read(path);
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.broken()).as("a broken transfer").isNotNull();
    assertThat(first.body().length).as("never the whole body").isLessThan(value.length);
    assertThat(Arrays.equals(first.body(), 0, first.body().length, value, 0, first.body().length))
        .as("what was sent is the stored bytes' prefix")
        .isTrue();

    TestGateways.Received again = read(path);
    assertThat(again.status()).isEqualTo(502);
    assertThat(new String(again.body(), StandardCharsets.UTF_8))
        .contains("\"reason\":\"CORRUPT\"")
        .contains("\"final\":true");
  }
}
