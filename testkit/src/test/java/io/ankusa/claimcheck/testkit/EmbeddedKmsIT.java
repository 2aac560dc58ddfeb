package io.ankusa.claimcheck.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kms.KmsAsyncClient;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.DataKeySpec;
import software.amazon.awssdk.services.kms.model.DecryptResponse;
import software.amazon.awssdk.services.kms.model.DisabledException;
import software.amazon.awssdk.services.kms.model.GenerateDataKeyResponse;
import software.amazon.awssdk.services.kms.model.IncorrectKeyException;
import software.amazon.awssdk.services.kms.model.InvalidCiphertextException;
import software.amazon.awssdk.services.kms.model.KeyState;
import software.amazon.awssdk.services.kms.model.KmsInvalidStateException;
import software.amazon.awssdk.services.kms.model.NotFoundException;

/** The real AWS SDK v2 {@code KmsClient} against {@link EmbeddedKms}. */
class EmbeddedKmsIT {

  private static final Map<String, String> CONTEXT = Map.of("tenant", "a", "pack", "p-1");
  private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(1);

  private static EmbeddedKms kms;
  private static KmsClient client;

  @BeforeAll
  static void start() {
    kms = EmbeddedKms.start();
    client = client(AwsRetryStrategy.doNotRetry());
  }

  @AfterAll
  static void stop() {
    client.close();
    kms.close();
  }

  @AfterEach
  void clear() {
    kms.clear();
    kms.resetCounts();
  }

  private static KmsClient client(software.amazon.awssdk.retries.api.RetryStrategy retries) {
    return KmsClient.builder()
        .endpointOverride(kms.endpoint())
        .region(Region.of(kms.region()))
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("any", "any-secret")))
        .overrideConfiguration(
            c ->
                c.retryStrategy(retries)
                    .apiCallAttemptTimeout(ATTEMPT_TIMEOUT)
                    .apiCallTimeout(Duration.ofSeconds(30)))
        .build();
  }

  private static GenerateDataKeyResponse dataKey(String key) {
    return client.generateDataKey(
        b -> b.keyId(key).keySpec(DataKeySpec.AES_256).encryptionContext(CONTEXT));
  }

  private static DecryptResponse decrypt(SdkBytes blob, Map<String, String> context) {
    return client.decrypt(b -> b.ciphertextBlob(blob).encryptionContext(context));
  }

  @Test
  void generateDataKeyThenDecryptRoundTripsThroughAnAlias() {
    String arn = kms.createKey();
    String alias = kms.createAlias("alias/round-trip", arn);

    GenerateDataKeyResponse made = dataKey(alias);
    DecryptResponse back = decrypt(made.ciphertextBlob(), CONTEXT);

    assertThat(made.keyId()).isEqualTo(arn).startsWith("arn:aws:kms:us-east-1:");
    assertThat(made.plaintext().asByteArray()).hasSize(32);
    assertThat(back.plaintext()).isEqualTo(made.plaintext());
    assertThat(back.keyId()).isEqualTo(arn);
    assertThat(kms.callCount("GenerateDataKey")).isEqualTo(1);
    assertThat(kms.callCount("Decrypt")).isEqualTo(1);
    assertThat(kms.callCount("Encrypt")).isZero();
  }

  @Test
  void theAsyncClientOnNettyRoundTripsAndSeesTypedErrors() {
    String arn = kms.createKey();
    try (KmsAsyncClient async =
        KmsAsyncClient.builder()
            .endpointOverride(kms.endpoint())
            .region(Region.of(kms.region()))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("any", "any-secret")))
            .httpClientBuilder(S3Clients.netty()) // Netty, on a loop that closes at once
            .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
            .build()) {
      GenerateDataKeyResponse made =
          async
              .generateDataKey(
                  b -> b.keyId(arn).keySpec(DataKeySpec.AES_256).encryptionContext(CONTEXT))
              .join();
      assertThat(
              async
                  .decrypt(b -> b.ciphertextBlob(made.ciphertextBlob()).encryptionContext(CONTEXT))
                  .join()
                  .plaintext())
          .isEqualTo(made.plaintext());
      kms.disable(arn);
      assertThat(
              catchThrowable(
                  () -> async.generateDataKey(b -> b.keyId(arn).numberOfBytes(32)).join()))
          .hasCauseInstanceOf(DisabledException.class);
    }
  }

  @Test
  void concurrentCallsAllRoundTripAndAreCountedExactly() throws Exception {
    String arn = kms.createKey();
    int threads = 8;
    int each = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  int ok = 0;
                  for (int i = 0; i < each; i++) {
                    GenerateDataKeyResponse made = dataKey(arn);
                    if (decrypt(made.ciphertextBlob(), CONTEXT)
                        .plaintext()
                        .equals(made.plaintext())) {
                      ok++;
                    }
                  }
                  return ok;
                }));
      }
      for (Future<Integer> f : done) {
        assertThat(f.get(2, TimeUnit.MINUTES)).isEqualTo(each);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(kms.callCount("GenerateDataKey")).isEqualTo(threads * each);
    assertThat(kms.callCount("Decrypt")).isEqualTo(threads * each);
  }

  @Test
  void encryptReallyEncryptsAndDecryptChecksAGivenKeyId() {
    String arn = kms.createKey();
    String other = kms.createKey();
    byte[] secret = "plaintext-marker-0123456789".getBytes(StandardCharsets.UTF_8);

    SdkBytes blob =
        client
            .encrypt(
                b ->
                    b.keyId(arn)
                        .plaintext(SdkBytes.fromByteArray(secret))
                        .encryptionContext(CONTEXT))
            .ciphertextBlob();

    assertThat(indexOf(blob.asByteArray(), secret)).isEqualTo(-1);
    assertThat(
            client
                .decrypt(b -> b.ciphertextBlob(blob).encryptionContext(CONTEXT).keyId(arn))
                .plaintext()
                .asByteArray())
        .isEqualTo(secret);
    assertThat(
            catchThrowable(
                () ->
                    client.decrypt(
                        b -> b.ciphertextBlob(blob).encryptionContext(CONTEXT).keyId(other))))
        .isInstanceOf(IncorrectKeyException.class);
  }

  @Test
  void wrongOrMissingEncryptionContextOrAFlippedByteIsInvalidCiphertext() {
    SdkBytes blob = dataKey(kms.createKey()).ciphertextBlob();
    byte[] flipped = blob.asByteArray();
    flipped[flipped.length - 1] ^= 1;

    assertInvalidCiphertext(() -> decrypt(blob, Map.of("tenant", "b", "pack", "p-1")));
    assertInvalidCiphertext(() -> decrypt(blob, Map.of()));
    assertInvalidCiphertext(() -> decrypt(SdkBytes.fromByteArray(flipped), CONTEXT));
    assertInvalidCiphertext(() -> decrypt(SdkBytes.fromUtf8String("not a blob at all"), CONTEXT));
  }

  @Test
  void disabledKeyIsDisabledExceptionUntilEnabled() {
    String arn = kms.createKey();
    SdkBytes blob = dataKey(arn).ciphertextBlob();
    kms.disable(arn);

    assertKmsError(catchThrowable(() -> dataKey(arn)), DisabledException.class);
    assertKmsError(catchThrowable(() -> decrypt(blob, CONTEXT)), DisabledException.class);
    assertThat(client.describeKey(b -> b.keyId(arn)).keyMetadata().keyState())
        .isEqualTo(KeyState.DISABLED);
    kms.enable(arn);
    assertThat(decrypt(blob, CONTEXT).keyId()).isEqualTo(arn);
  }

  @Test
  void keyPendingDeletionIsKmsInvalidStateUntilCancelled() {
    String arn = kms.createKey();
    SdkBytes blob = dataKey(arn).ciphertextBlob();
    kms.scheduleDeletion(arn);

    assertKmsError(catchThrowable(() -> dataKey(arn)), KmsInvalidStateException.class);
    assertKmsError(catchThrowable(() -> decrypt(blob, CONTEXT)), KmsInvalidStateException.class);
    assertThat(client.describeKey(b -> b.keyId(arn)).keyMetadata().keyState())
        .isEqualTo(KeyState.PENDING_DELETION);
    kms.cancelDeletion(arn);
    assertThat(decrypt(blob, CONTEXT).keyId()).isEqualTo(arn);
  }

  @Test
  void deletedKeyIsNotFoundForGood() {
    String arn = kms.createKey();
    String alias = kms.createAlias("alias/shredded", arn);
    SdkBytes blob = dataKey(arn).ciphertextBlob();
    kms.delete(arn);

    assertKmsError(catchThrowable(() -> decrypt(blob, CONTEXT)), NotFoundException.class);
    assertKmsError(catchThrowable(() -> dataKey(arn)), NotFoundException.class);
    assertKmsError(catchThrowable(() -> dataKey(alias)), NotFoundException.class);
    assertKmsError(
        catchThrowable(() -> client.describeKey(b -> b.keyId(arn))), NotFoundException.class);
    assertKmsError(catchThrowable(() -> dataKey("alias/never-made")), NotFoundException.class);
  }

  @Test
  void throttlingIsAThrottlingExceptionForTheNextNCalls() {
    String arn = kms.createKey();
    kms.throttle(2);

    for (int i = 0; i < 2; i++) {
      Throwable t = catchThrowable(() -> dataKey(arn));
      assertThat(t).isInstanceOf(AwsServiceException.class);
      AwsServiceException e = (AwsServiceException) t;
      assertThat(e.isThrottlingException()).isTrue();
      assertThat(e.statusCode()).isEqualTo(400);
      assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
    }
    assertThat(dataKey(arn).keyId()).isEqualTo(arn);
    assertThat(kms.callCount("GenerateDataKey")).isEqualTo(3);
  }

  @Test
  void theSdksDefaultRetriesRideOutThrottling() {
    String arn = kms.createKey();
    kms.throttle(2);
    try (KmsClient retrying = client(AwsRetryStrategy.standardRetryStrategy())) {
      assertThat(retrying.generateDataKey(b -> b.keyId(arn).numberOfBytes(16)).plaintext())
          .satisfies(p -> assertThat(p.asByteArray()).hasSize(16));
    }
    assertThat(kms.callCount("GenerateDataKey")).isEqualTo(3);
  }

  @Test
  void hangAndSlowAnswersTimeOutTheAttempt() {
    String arn = kms.createKey();
    kms.hang();
    assertThat(catchThrowable(() -> dataKey(arn)))
        .isInstanceOf(ApiCallAttemptTimeoutException.class);
    kms.clear();
    kms.slow(ATTEMPT_TIMEOUT.multipliedBy(5));
    assertThat(catchThrowable(() -> dataKey(arn)))
        .isInstanceOf(ApiCallAttemptTimeoutException.class);
    kms.clear();
    assertThat(dataKey(arn).keyId()).isEqualTo(arn);
  }

  @Test
  void downRefusesConnectionsUntilUpOnTheSameEndpoint() {
    String arn = kms.createKey();
    kms.down();

    // The first call may meet the closed pooled connection (no answer); the next is refused.
    assertThat(catchThrowable(() -> dataKey(arn)))
        .isInstanceOf(SdkClientException.class)
        .isNotInstanceOf(AwsServiceException.class);
    assertThat(catchThrowable(() -> dataKey(arn)))
        .isInstanceOf(SdkClientException.class)
        .hasRootCauseInstanceOf(ConnectException.class);
    assertThat(kms.callCount("GenerateDataKey")).isZero();
    kms.up();
    assertThat(dataKey(arn).keyId()).isEqualTo(arn);
  }

  private static void assertInvalidCiphertext(Runnable call) {
    assertKmsError(catchThrowable(call::run), InvalidCiphertextException.class);
  }

  private static void assertKmsError(Throwable t, Class<? extends AwsServiceException> type) {
    assertThat(t).isInstanceOf(type);
    AwsServiceException e = (AwsServiceException) t;
    assertThat(e.statusCode()).isEqualTo(400);
    assertThat(e.isThrottlingException()).isFalse();
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
  }
}
