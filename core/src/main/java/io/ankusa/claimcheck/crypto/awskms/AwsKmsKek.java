package io.ankusa.claimcheck.crypto.awskms;

import io.ankusa.claimcheck.crypto.KekProvider.DataKey;
import io.ankusa.claimcheck.crypto.KekProvider.Kek;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kms.KmsAsyncClient;
import software.amazon.awssdk.services.kms.model.DataKeySpec;

/**
 * One AWS KMS key as a KEK; thread-safe. {@code Decrypt} names the key when the KEK id is a key ARN
 * (so a blob of another key is refused), and not when it is an alias: a symmetric blob names its
 * key, and an alias re-pointed at a new key (rotation) must still open the old key's blobs.
 */
final class AwsKmsKek implements Kek {

  private final String id;
  private final String ref;
  private final KmsAsyncClient kms;
  private final Runnable closeLoop;

  /**
   * {@code closeLoop} shuts down the event loop {@code kms} runs on, once {@code kms} is closed.
   */
  AwsKmsKek(String id, String ref, KmsAsyncClient kms, Runnable closeLoop) {
    this.id = id;
    this.ref = ref;
    this.kms = kms;
    this.closeLoop = closeLoop;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public CompletableFuture<DataKey> generate(Map<String, String> context) {
    try {
      return kms.generateDataKey(
              r -> r.keyId(ref).keySpec(DataKeySpec.AES_256).encryptionContext(context))
          .handle(
              (resp, error) -> {
                if (error != null) {
                  throw KmsFailures.of(id, "GenerateDataKey", error);
                }
                return new DataKey(
                    resp.plaintext().asByteArray(), resp.ciphertextBlob().asByteArray());
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(KmsFailures.of(id, "GenerateDataKey", e));
    }
  }

  @Override
  public CompletableFuture<byte[]> unwrap(byte[] wrapped, Map<String, String> context) {
    boolean arn = ref.startsWith("arn:") && ref.contains(":key/");
    try {
      return kms.decrypt(
              r -> {
                r.ciphertextBlob(SdkBytes.fromByteArray(wrapped)).encryptionContext(context);
                if (arn) {
                  r.keyId(ref);
                }
              })
          .handle(
              (resp, error) -> {
                if (error != null) {
                  throw KmsFailures.of(id, "Decrypt", error);
                }
                return resp.plaintext().asByteArray();
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(KmsFailures.of(id, "Decrypt", e));
    }
  }

  @Override
  public void close() {
    kms.close();
    closeLoop.run();
  }
}
