package io.ankusa.claimcheck.crypto.awskms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.testkit.EmbeddedKms;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code aws-kms:} KEKs through the AWS SDK v2 {@code kms} client against {@link EmbeddedKms},
 * a local stub of KMS's JSON protocol (not KMS: it proves the client wiring, the request and answer
 * shapes and the error mapping, not IAM or latency): round trips by ARN and alias, KMS calls per
 * 100 operations, and each failure's answer (disabled / pending deletion: UNAVAILABLE naming the
 * key; deleted: NOT_FOUND saying it was shredded; throttled: retried inside the deadline; down:
 * UNAVAILABLE).
 */
class AwsKmsIT {

  private static EmbeddedKms kms;
  private static int runtimes;
  private final String store = "kms-it-" + UUID.randomUUID();

  @BeforeAll
  static void start() {
    kms = EmbeddedKms.start();
  }

  @AfterAll
  static void stop() {
    kms.close();
  }

  /** A config for {@code kek}; each call a runtime of its own (no data key cached). */
  private Map<String, Object> config(String kek) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "memory:" + store);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.encryption.kek", "aws-kms:" + kek);
    m.put("claimcheck.encryption.aws-kms.endpoint", kms.endpoint().toString());
    m.put("claimcheck.encryption.aws-kms.region", kms.region());
    m.put("claimcheck.encryption.aws-kms.access.key.id", "AKIDEXAMPLE");
    m.put("claimcheck.encryption.aws-kms.secret.access.key", "secret");
    m.put("claimcheck.encryption.aws-kms.timeout.ms", "5000"); // a loaded machine's first call
    m.put("claimcheck.encryption.cache.max.keys", String.valueOf(1000 + ++runtimes));
    return m;
  }

  private static byte[] value(int i) {
    byte[] v = new byte[10_000];
    v[0] = (byte) i;
    v[9_999] = (byte) (i >> 8);
    return v;
  }

  private static byte[] redeem(ClaimCheck cc, ClaimRef ref) {
    return cc.redeem(ref, cc.ticker().read() + Duration.ofSeconds(10).toNanos()).join();
  }

  private static ClaimCheckFailure failure(ClaimCheck cc, ClaimRef ref) {
    try {
      redeem(cc, ref);
    } catch (CompletionException e) {
      return (ClaimCheckFailure) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  private ClaimRef written(String kek) {
    try (ClaimCheck w = ClaimCheck.open(config(kek))) {
      return w.checkIn(value(1));
    }
  }

  @Test
  void claimsRoundTripAndKmsIsCalledOncePerHundredCheckInsAndRedeems() {
    String key = kms.createKey();
    kms.resetCounts();
    ClaimRef[] refs = new ClaimRef[100];
    try (ClaimCheck w = ClaimCheck.open(config(key))) {
      for (int i = 0; i < 100; i++) {
        refs[i] = w.checkIn(value(i));
      }
    }
    assertThat(kms.callCount("GenerateDataKey")).isEqualTo(1);
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      for (int i = 0; i < 100; i++) {
        assertThat(redeem(r, refs[i])).isEqualTo(value(i));
      }
    }
    assertThat(kms.callCount("Decrypt")).isEqualTo(1);
  }

  /** Regression: the KMS client's event loop closed with Netty's default 2 s quiet period. */
  @Test
  void closingAClaimCheckWithAnAwsKmsKekTakesWellUnderNettysDefaultQuietPeriod() {
    String key = kms.createKey();
    ClaimCheck w = ClaimCheck.open(config(key));
    w.checkIn(value(1)); // the client has made a call: its event loop runs
    long start = System.nanoTime();
    w.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
  }

  @Test
  void anAliasWorksAsTheKek() {
    String key = kms.createKey();
    String alias =
        kms.createAlias("alias/acme-" + UUID.randomUUID().toString().substring(0, 8), key);
    ClaimRef ref = written(alias);
    try (ClaimCheck r = ClaimCheck.open(config(alias))) {
      assertThat(redeem(r, ref)).isEqualTo(value(1));
    }
  }

  @Test
  void aDisabledKeyOrOnePendingDeletionIsUnavailableNamingItUntilUndone() {
    String key = kms.createKey();
    ClaimRef ref = written(key);
    kms.disable(key);
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      ClaimCheckFailure f = failure(r, ref);
      assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
      assertThat(f.getMessage()).contains(key).contains("disabled");
      assertThatThrownBy(() -> r.checkIn(value(2)))
          .isInstanceOf(ClaimCheckFailure.class)
          .hasMessageContaining(key)
          .matches(e -> ((ClaimCheckFailure) e).reason() == Reason.UNAVAILABLE);
    }
    kms.enable(key);
    kms.scheduleDeletion(key);
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      ClaimCheckFailure f = failure(r, ref);
      assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
      assertThat(f.getMessage()).contains(key).contains("pending deletion");
    }
    kms.cancelDeletion(key);
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      assertThat(redeem(r, ref)).isEqualTo(value(1));
    }
  }

  @Test
  void aDeletedKeyShredsItsClaimsWithAFinalAnswerSayingSo() {
    String key = kms.createKey();
    ClaimRef ref = written(key);
    kms.delete(key);
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      ClaimCheckFailure f = failure(r, ref);
      assertThat(f.reason()).isEqualTo(Reason.NOT_FOUND);
      assertThat(f.getMessage()).contains(key).contains("crypto-shredded");
    }
  }

  @Test
  void throttlingIsRetriedInsideTheDeadlineAndAKmsDownIsUnavailable() {
    String key = kms.createKey();
    ClaimRef ref = written(key);
    kms.resetCounts();
    kms.throttle(2);
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      assertThat(redeem(r, ref)).isEqualTo(value(1));
    }
    assertThat(kms.callCount("Decrypt")).as("two throttled, then the answer").isEqualTo(3);
    kms.down();
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      ClaimCheckFailure f = failure(r, ref);
      assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
      assertThat(f.getMessage()).contains(key);
    } finally {
      kms.up();
    }
    try (ClaimCheck r = ClaimCheck.open(config(key))) {
      assertThat(redeem(r, ref)).isEqualTo(value(1));
    }
  }
}
