package io.ankusa.claimcheck.store.s3;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
 * the requests in flight settled, and the put fails only once the abort answered (each wait
 * bounded), so no parts are left behind and no object appears; once the put has failed (its timeout
 * included) no request of it starts any more — a {@code CreateMultipartUpload} that answers late
 * uploads no part, and parts that settle late complete nothing — because every request starts, and
 * the failure is recorded, under one lock ({@code inFlight}); the bytes are read in place, never
 * copied.
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
    InFlight inFlight = new InFlight();
    CompletableFuture<Void> done =
        created
            .thenCompose(id -> uploadAndComplete(id, inFlight))
            .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    long abortWaitNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(ABORT_WAIT_MS), timeoutNanos);
    return done.handle(
            (ok, failure) ->
                failure == null
                    ? done
                    : abortAfter(created, inFlight, abortWaitNanos).thenCompose(v -> done))
        .thenCompose(f -> f);
  }

  /**
   * The requests of one put that have started, and whether the put has failed; guarded by its own
   * monitor, so a request either starts before the failure is recorded (and is waited for) or not
   * at all.
   */
  private static final class InFlight {
    private final List<CompletableFuture<?>> started = new ArrayList<>();
    private boolean failed;

    /** Starts {@code request} unless the put has failed; then returns null and starts nothing. */
    synchronized <T> CompletableFuture<T> start(Supplier<CompletableFuture<T>> request) {
      if (failed) {
        return null;
      }
      CompletableFuture<T> f = request.get();
      started.add(f);
      return f;
    }

    /** Records the failure; returns every request started before it. */
    synchronized CompletableFuture<?>[] fail() {
      failed = true;
      return started.toArray(CompletableFuture[]::new);
    }
  }

  /**
   * Once the parts in flight settled (an abort must come after them, or one may outlive it), aborts
   * the upload if it was created, and completes when the abort answered, or after {@code waitNanos}
   * at most (a hung store must not more than double a failed put's time): the put fails only then,
   * so a caller who sees it fail finds no upload left behind, and neither does a process that exits
   * on the failure. Never fails: best effort, a lifecycle rule cleans up what this misses.
   */
  private CompletableFuture<Void> abortAfter(
      CompletableFuture<String> created, InFlight inFlight, long waitNanos) {
    CompletableFuture<?>[] started = inFlight.fail(); // from here on, nothing more starts
    if (created.isCompletedExceptionally()) {
      return CompletableFuture.completedFuture(null); // no upload to abort
    }
    return CompletableFuture.allOf(started)
        .handle((v, t) -> null)
        .completeOnTimeout(null, waitNanos, TimeUnit.NANOSECONDS)
        .thenCompose(v -> created.thenCompose(this::abort))
        .handle((v, t) -> (Void) null)
        .completeOnTimeout(null, waitNanos, TimeUnit.NANOSECONDS);
  }

  private CompletableFuture<Void> uploadAndComplete(String uploadId, InFlight inFlight) {
    int parts = (bytes.length + partSize - 1) / partSize;
    List<CompletableFuture<CompletedPart>> own = new ArrayList<>(parts);
    for (int i = 0; i < parts; i++) {
      int number = i + 1;
      int from = i * partSize;
      int length = Math.min(partSize, bytes.length - from);
      CompletableFuture<CompletedPart> upload =
          inFlight.start( // seen by a failure's abort, which must wait for it
              () ->
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
                      .thenApply(
                          r -> CompletedPart.builder().partNumber(number).eTag(r.eTag()).build()));
      if (upload == null) {
        return abandoned();
      }
      own.add(upload);
    }
    return CompletableFuture.allOf(own.toArray(CompletableFuture[]::new))
        .thenCompose(
            all -> {
              List<CompletedPart> completed = new ArrayList<>(parts);
              own.forEach(u -> completed.add(u.join()));
              CompletableFuture<?> completing =
                  inFlight.start(
                      () ->
                          client.completeMultipartUpload(
                              b ->
                                  b.bucket(bucket)
                                      .key(objectKey)
                                      .uploadId(uploadId)
                                      .ifNoneMatch(replace ? null : "*")
                                      .multipartUpload(m -> m.parts(completed))
                                      .overrideConfiguration(override)));
              return completing == null ? abandoned() : completing;
            })
        .thenApply(r -> null);
  }

  /** What a request that did not start because the put had already failed answers. */
  private static <T> CompletableFuture<T> abandoned() {
    return CompletableFuture.failedFuture(new CancellationException("the put had already failed"));
  }

  private CompletableFuture<Void> abort(String uploadId) {
    return client
        .abortMultipartUpload(
            b -> b.bucket(bucket).key(objectKey).uploadId(uploadId).overrideConfiguration(override))
        .handle((r, t) -> null); // best effort: a lifecycle rule cleans up what this misses
  }
}
