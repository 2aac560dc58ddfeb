package io.ankusa.claimcheck.store.s3;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * One put of a large pack as an S3 multipart upload — put-if-absent, or a replacing put of a
 * content-addressed pack; thread-safe (each instance is one upload, driven by SDK callbacks).
 *
 * <p>Invariants: the parts are uploaded concurrently, every request and the whole upload are
 * bounded by the one timeout the put was given; a put-if-absent is completed with {@code
 * If-None-Match: *}, so — like a single PUT — it never replaces an object (a 412 there is {@code
 * ALREADY_EXISTS}), a replacing put without it; any failure aborts the upload (best effort), so no
 * parts are left behind and no object appears; the bytes are read in place, never copied.
 */
final class MultipartPut {

  private final S3AsyncClient client;
  private final String bucket;
  private final String objectKey;
  private final byte[] bytes;
  private final int partSize;
  private final AwsRequestOverrideConfiguration override;
  private final boolean replace;

  MultipartPut(
      S3AsyncClient client,
      String bucket,
      String objectKey,
      byte[] bytes,
      int partSize,
      AwsRequestOverrideConfiguration override) {
    this(client, bucket, objectKey, bytes, partSize, override, false);
  }

  /** {@code replace}: complete without {@code If-None-Match}, replacing any object there. */
  MultipartPut(
      S3AsyncClient client,
      String bucket,
      String objectKey,
      byte[] bytes,
      int partSize,
      AwsRequestOverrideConfiguration override,
      boolean replace) {
    this.replace = replace;
    this.client = client;
    this.bucket = bucket;
    this.objectKey = objectKey;
    this.bytes = bytes;
    this.partSize = partSize;
    this.override = override;
  }

  /**
   * Uploads the pack; completes when S3 holds the whole object, or exceptionally with the raw SDK
   * failure (or a {@code TimeoutException}) for the caller to classify as a put.
   */
  CompletableFuture<Void> run(long timeoutNanos) {
    CompletableFuture<String> created =
        client
            .createMultipartUpload(
                b -> b.bucket(bucket).key(objectKey).overrideConfiguration(override))
            .thenApply(r -> r.uploadId());
    CompletableFuture<Void> done =
        created.thenCompose(this::uploadAndComplete).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    return done.whenComplete(
        (ok, failure) -> {
          if (failure != null) {
            created.thenAccept(this::abort); // only if the upload was created
          }
        });
  }

  private CompletableFuture<Void> uploadAndComplete(String uploadId) {
    int parts = (bytes.length + partSize - 1) / partSize;
    List<CompletableFuture<CompletedPart>> uploads = new ArrayList<>(parts);
    for (int i = 0; i < parts; i++) {
      int number = i + 1;
      int from = i * partSize;
      int length = Math.min(partSize, bytes.length - from);
      uploads.add(
          client
              .uploadPart(
                  b ->
                      b.bucket(bucket)
                          .key(objectKey)
                          .uploadId(uploadId)
                          .partNumber(number)
                          .contentLength((long) length)
                          .overrideConfiguration(override),
                  AsyncRequestBody.fromByteBufferUnsafe(
                      ByteBuffer.wrap(bytes, from, length).slice()))
              .thenApply(r -> CompletedPart.builder().partNumber(number).eTag(r.eTag()).build()));
    }
    return CompletableFuture.allOf(uploads.toArray(CompletableFuture[]::new))
        .thenCompose(
            all -> {
              List<CompletedPart> completed = new ArrayList<>(parts);
              uploads.forEach(u -> completed.add(u.join()));
              return client.completeMultipartUpload(
                  b ->
                      b.bucket(bucket)
                          .key(objectKey)
                          .uploadId(uploadId)
                          .ifNoneMatch(replace ? null : "*")
                          .multipartUpload(m -> m.parts(completed))
                          .overrideConfiguration(override));
            })
        .thenApply(r -> null);
  }

  private void abort(String uploadId) {
    client
        .abortMultipartUpload(
            b -> b.bucket(bucket).key(objectKey).uploadId(uploadId).overrideConfiguration(override))
        .exceptionally(t -> null); // best effort: a lifecycle rule cleans up what this misses
  }
}
