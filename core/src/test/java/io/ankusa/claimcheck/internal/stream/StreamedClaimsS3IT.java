package io.ankusa.claimcheck.internal.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Streamed claims through the facade against S3Proxy 4 behind the fault proxy: a streamed check-in
 * as a multipart upload and a chunked streamed redeem, and a store that hangs in the middle of a
 * streamed redeem costing the chunk's deadline, then {@code UNAVAILABLE} (issue 17).
 */
class StreamedClaimsS3IT {

  private static EmbeddedS3 s3;
  private static FaultProxy proxy;
  private static String bucket;
  private ClaimCheck cc;

  @BeforeAll
  static void servers() {
    s3 = EmbeddedS3.shared();
    bucket = s3.createBucket("streams-" + ThreadLocalRandom.current().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @AfterEach
  void close() {
    proxy.clear();
    if (cc != null) {
      cc.close();
    }
  }

  private ClaimCheck open(String codec) {
    Map<String, Object> m = s3.claimCheckConfig("s3://" + bucket + "/streams", proxy.endpoint());
    m.put("claimcheck.s3.multipart.part.bytes", String.valueOf(5 << 20));
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.compression.type", codec);
    m.put("claimcheck.stream.max.bytes", String.valueOf(1L << 30));
    m.put("claimcheck.store.op.deadline.ms", "20000");
    cc = ClaimCheck.open(m);
    return cc;
  }

  private static byte[] payload(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] sha256(InputStream in) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    byte[] buf = new byte[1 << 16];
    for (int n; (n = in.read(buf)) >= 0; ) {
      d.update(buf, 0, n);
    }
    return d.digest();
  }

  @Test
  void aStreamedClaimGoesUpAsAMultipartUploadAndComesBackInChunks() throws Exception {
    ClaimCheck c = open("none");
    byte[] value = payload(12 << 20, 1);
    proxy.resetCounts();
    ClaimRef ref = c.checkIn(new ByteArrayInputStream(value), value.length);
    assertThat(proxy.requestCount("PUT")).as("three parts of 5 MiB").isEqualTo(3);
    proxy.resetCounts();
    assertThat(sha256(c.redeemStream(ref, Duration.ofSeconds(10))))
        .isEqualTo(MessageDigest.getInstance("SHA-256").digest(value));
    assertThat(proxy.requestCount("GET")).as("one ranged GET per 1 MiB chunk").isEqualTo(12);
  }

  @Test
  void aZstdStreamedClaimRoundTrips() throws Exception {
    ClaimCheck c = open("zstd");
    byte[] value = new byte[9 << 20];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) (i % 251 < 200 ? 'x' : i);
    }
    ClaimRef ref = c.checkIn(new ByteArrayInputStream(value), -1);
    assertThat(ref.length()).isLessThan(value.length / 2);
    assertThat(sha256(c.redeemStream(ref, Duration.ofSeconds(10))))
        .isEqualTo(MessageDigest.getInstance("SHA-256").digest(value));
  }

  @Test
  void aStoreHangingDuringAStreamedRedeemIsUnavailableAfterTheChunkDeadline() throws Exception {
    ClaimCheck c = open("none");
    byte[] value = payload(16 << 20, 2);
    ClaimRef ref = c.checkIn(new ByteArrayInputStream(value), value.length);
    ClaimCheck.ClaimStream in = c.redeemStream(ref, Duration.ofMillis(1500));
    byte[] buf = new byte[1 << 20];
    assertThat(in.readNBytes(buf, 0, buf.length)).isEqualTo(buf.length);
    proxy.hang(Duration.ofSeconds(15));
    long start = System.nanoTime();
    assertThatThrownBy(
            () -> {
              while (in.read(buf) >= 0) {
                // read until the hung chunk
              }
            })
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class,
            f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the chunk's deadline, not the hang")
        .isLessThan(Duration.ofSeconds(12));
    in.close();
  }
}
