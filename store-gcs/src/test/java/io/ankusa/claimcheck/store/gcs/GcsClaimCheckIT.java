package io.ankusa.claimcheck.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The claim check itself on a {@code gs://} store (over the {@link GcsStub}): values checked in —
 * packed, and streamed through a resumable upload — and redeemed whole and as a stream, by a second
 * claim check opened on the same configuration.
 */
class GcsClaimCheckIT {

  private static final String BUCKET = "facade-bucket";
  private static GcsStub stub;

  @BeforeAll
  static void start() throws Exception {
    stub = GcsStub.start();
    stub.objects().createBucket(BUCKET);
  }

  @AfterAll
  static void stop() {
    stub.close();
  }

  private static Map<String, Object> config() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "gs://" + BUCKET + "/claims");
    m.put("claimcheck.store.0.gcs.endpoint", stub.endpoint().toString());
    m.put("claimcheck.store.0.gcs.anonymous", "true");
    m.put("claimcheck.store.0.gcs.upload.chunk.bytes", Integer.toString(256 << 10));
    m.put("claimcheck.store.op.deadline.ms", "30000");
    m.put("claimcheck.read.deadline.ms", "60000");
    return m;
  }

  @Test
  void aValueCheckedInOnGcsIsRedeemedByAnotherClaimCheck() throws Exception {
    byte[] value = new byte[600_000];
    new Random(20).nextBytes(value);
    byte[] streamed = new byte[900_001];
    new Random(21).nextBytes(streamed);
    ClaimRef packed;
    ClaimRef big;
    try (ClaimCheck writer = ClaimCheck.open(config())) {
      packed = writer.checkIn(value);
      big = writer.checkIn(new ByteArrayInputStream(streamed), streamed.length);
    }
    assertThat(big.isStreamed()).isTrue();
    try (ClaimCheck reader = ClaimCheck.open(config())) {
      long deadline = reader.ticker().read() + Duration.ofSeconds(60).toNanos();
      assertThat(reader.redeemBlocking(packed, deadline)).isEqualTo(value);
      try (var stream = reader.redeemStream(big, Duration.ofSeconds(60))) {
        assertThat(stream.readAllBytes()).isEqualTo(streamed); // its end verified
      }
    }
  }
}
