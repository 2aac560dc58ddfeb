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
 * ALREADY_EXISTS}), a replacing put without it; any failure aborts the upload (best effort) once
 * the parts in flight settled, and the put fails only once the abort answered (each wait bounded),
 * so no parts are left behind and no object appears; the bytes are read in place, never copied.
 */
final class MultipartPut {

  /** How long a failed put waits for its parts to settle and its abort's answer, at most. */
  private static final long ABORT_WAIT_MS = 2_000;

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
    List<CompletableFuture<CompletedPart>> uploads = new ArrayList<>();
    CompletableFuture<Void> done =
        created
            .thenCompose(id -> uploadAndComplete(id, uploads))
            .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    long abortWaitNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(ABORT_WAIT_MS), timeoutNanos);
    return done.handle(
            (ok, failure) ->
                failure == null
                    ? done
                    : abortAfter(created, uploads, abortWaitNanos).thenCompose(v -> done))
        .thenCompose(f -> f);
  }

  /**
   * Once the parts in flight settled (an abort must come after them, or one may outlive it), aborts
   * the upload if it was created, and completes when the abort answered, or after {@code waitNanos}
   * at most (a hung store must not more than double a failed put's time): the put fails only then,
   * so a caller who sees it fail finds no upload left behind, and neither does a process that exits
   * on the failure. Never fails: best effort, a lifecycle rule cleans up what this misses.
   */
  private CompletableFuture<Void> abortAfter(
      CompletableFuture<String> created,
      List<CompletableFuture<CompletedPart>> uploads,
      long waitNanos) {
    if (created.isCompletedExceptionally()) {
      return CompletableFuture.completedFuture(null); // no upload to abort
    }
    CompletableFuture<?>[] inFlight;
    synchronized (uploads) {
      inFlight = uploads.toArray(CompletableFuture[]::new);
    }
    return CompletableFuture.allOf(inFlight)
        .handle((v, t) -> null)
        .completeOnTimeout(null, waitNanos, TimeUnit.NANOSECONDS)
        .thenCompose(v -> created.thenCompose(this::abort))
        .handle((v, t) -> (Void) null)
        .completeOnTimeout(null, waitNanos, TimeUnit.NANOSECONDS);
  }

  private CompletableFuture<Void> uploadAndComplete(
      String uploadId, List<CompletableFuture<CompletedPart>> uploads) {
    int parts = (bytes.length + partSize - 1) / partSize;
    List<CompletableFuture<CompletedPart>> own = new ArrayList<>(parts);
    for (int i = 0; i < parts; i++) {
      int number = i + 1;
      int from = i * partSize;
      int length = Math.min(partSize, bytes.length - from);
      CompletableFuture<CompletedPart> upload =
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
              .thenApply(r -> CompletedPart.builder().partNumber(number).eTag(r.eTag()).build());
      own.add(upload);
      synchronized (uploads) {
        uploads.add(upload); // seen by a failure's abort, which must wait for it
      }
    }
    return CompletableFuture.allOf(own.toArray(CompletableFuture[]::new))
        .thenCompose(
            all -> {
              List<CompletedPart> completed = new ArrayList<>(parts);
              own.forEach(u -> completed.add(u.join()));
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

  private CompletableFuture<Void> abort(String uploadId) {
    return client
        .abortMultipartUpload(
            b -> b.bucket(bucket).key(objectKey).uploadId(uploadId).overrideConfiguration(override))
        .handle((r, t) -> null); // best effort: a lifecycle rule cleans up what this misses
  }
}
