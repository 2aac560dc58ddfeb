package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.s3.S3Failures.Op;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * One streamed put-if-absent: the calling thread reads the source a part at a time and S3 takes the
 * parts of a multipart upload concurrently, completed with {@code If-None-Match: *}; one instance
 * is one put, driven by its calling thread (not shared).
 *
 * <p>Invariants: at most {@code inFlight} parts are held at once (each at most the part size), so
 * memory is bounded whatever the length; a source that fits one part is one plain PUT with {@code
 * If-None-Match: *}; every request is bounded by the request timeout (the SDK's call timeout); any
 * failure — of the source, of a part, of the completion (a 412 there is {@code ALREADY_EXISTS}) —
 * aborts the upload (best effort), so no object appears and no parts are left behind but for what a
 * lifecycle rule for incomplete uploads cleans.
 */
final class StreamedPut {

  /** S3's most parts in one upload. */
  static final int MAX_PARTS = 10_000;

  /** How long a failed put waits for its abort's answer at most. */
  private static final long ABORT_WAIT_MS = 2_000;

  private final S3AsyncClient client;
  private final String bucket;
  private final String objectKey;
  private final int basePartSize;
  private final int inFlight;
  private final Duration timeout;
  private final String store;
  private final String key;

  StreamedPut(
      S3AsyncClient client,
      String bucket,
      String objectKey,
      int partSize,
      int inFlight,
      Duration timeout,
      String store,
      String key) {
    this.client = client;
    this.bucket = bucket;
    this.objectKey = objectKey;
    this.basePartSize = partSize;
    this.inFlight = inFlight;
    this.timeout = timeout;
    this.store = store;
    this.key = key;
  }

  /** The part size for {@code length} bytes: the configured one, or more to stay in 10,000. */
  static int partSize(int configured, long length) {
    if (length == ClaimStore.UNKNOWN_LENGTH) {
      return configured;
    }
    long needed = (length + MAX_PARTS - 1) / MAX_PARTS;
    long mib = 1 << 20;
    return (int)
        Math.min(Integer.MAX_VALUE - 8, Math.max(configured, (needed + mib - 1) / mib * mib));
  }

  /** Writes the source; returns its length once S3 holds the whole object. */
  long run(InputStream source, long length) throws IOException {
    int partSize = partSize(basePartSize, length);
    byte[] first = readPart(source, length, 0, partSize);
    if (first.length == 0) {
      throw new EOFException("the source is empty: nothing to store under " + key);
    }
    boolean whole =
        length == ClaimStore.UNKNOWN_LENGTH ? first.length < partSize : first.length == length;
    if (whole) {
      await(
          client.putObject(
              b ->
                  b.bucket(bucket)
                      .key(objectKey)
                      .ifNoneMatch("*")
                      .contentLength((long) first.length)
                      .overrideConfiguration(override()),
              AsyncRequestBody.fromBytesUnsafe(first)));
      return first.length;
    }
    String uploadId =
        await(
                client.createMultipartUpload(
                    b -> b.bucket(bucket).key(objectKey).overrideConfiguration(override())))
            .uploadId();
    try {
      return upload(uploadId, first, source, length, partSize);
    } catch (IOException | RuntimeException | Error e) {
      abort(uploadId);
      throw e;
    }
  }

  private long upload(String uploadId, byte[] first, InputStream source, long length, int partSize)
      throws IOException {
    Semaphore slots = new Semaphore(inFlight);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    List<CompletableFuture<CompletedPart>> parts = new ArrayList<>();
    try {
      return uploadParts(uploadId, first, source, length, partSize, slots, failed, parts);
    } catch (IOException | RuntimeException | Error e) {
      settle(parts); // an abort must come after the parts in flight, or one may outlive it
      throw e;
    }
  }

  /** Waits (bounded) until every part started has succeeded or failed. */
  private void settle(List<CompletableFuture<CompletedPart>> parts) {
    try {
      CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
          .handle((v, t) -> null)
          .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // bounded: the abort goes ahead
    }
  }

  private long uploadParts(
      String uploadId,
      byte[] first,
      InputStream source,
      long length,
      int partSize,
      Semaphore slots,
      AtomicReference<Throwable> failed,
      List<CompletableFuture<CompletedPart>> parts)
      throws IOException {
    long total = 0;
    byte[] part = first;
    while (part.length > 0) {
      if (parts.size() == MAX_PARTS) {
        throw new StoreException(
            Kind.UNAVAILABLE, "PUT " + store + " key '" + key + "': past " + MAX_PARTS + " parts");
      }
      acquire(slots, failed);
      int number = parts.size() + 1;
      byte[] body = part;
      CompletableFuture<CompletedPart> up =
          client
              .uploadPart(
                  b ->
                      b.bucket(bucket)
                          .key(objectKey)
                          .uploadId(uploadId)
                          .partNumber(number)
                          .contentLength((long) body.length)
                          .overrideConfiguration(override()),
                  AsyncRequestBody.fromByteBufferUnsafe(ByteBuffer.wrap(body)))
              .thenApply(r -> CompletedPart.builder().partNumber(number).eTag(r.eTag()).build());
      up.whenComplete(
          (ok, t) -> {
            if (t != null) {
              failed.compareAndSet(null, t);
            }
            slots.release();
          });
      parts.add(up);
      total += body.length;
      boolean ended =
          length == ClaimStore.UNKNOWN_LENGTH ? body.length < partSize : total == length;
      part = ended ? new byte[0] : readPart(source, length, total, partSize);
    }
    List<CompletedPart> completed = new ArrayList<>(parts.size());
    for (CompletableFuture<CompletedPart> p : parts) {
      completed.add(await(p));
    }
    await(
        client.completeMultipartUpload(
            b ->
                b.bucket(bucket)
                    .key(objectKey)
                    .uploadId(uploadId)
                    .ifNoneMatch("*")
                    .multipartUpload(m -> m.parts(completed))
                    .overrideConfiguration(override())));
    return total;
  }

  /** The next part: up to the part size, fewer only at the source's end; EOF before length. */
  private static byte[] readPart(InputStream source, long length, long done, int partSize)
      throws IOException {
    int want =
        length == ClaimStore.UNKNOWN_LENGTH ? partSize : (int) Math.min(partSize, length - done);
    byte[] b = source.readNBytes(want);
    if (length != ClaimStore.UNKNOWN_LENGTH && b.length < want) {
      throw new EOFException(
          "the source ended after " + (done + b.length) + " of " + length + " bytes");
    }
    return b;
  }

  private void acquire(Semaphore slots, AtomicReference<Throwable> failed) {
    try {
      while (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
        rethrow(failed.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException(
          Kind.UNAVAILABLE, "PUT " + store + " key '" + key + "': interrupted", null, e);
    }
    rethrow(failed.get());
  }

  private void rethrow(Throwable failure) {
    if (failure != null) {
      throw asStore(failure);
    }
  }

  private RuntimeException asStore(Throwable failure) {
    Throwable t = S3Failures.outcome(failure, Op.PUT, store, key);
    if (t instanceof Error e) {
      throw e;
    }
    return (RuntimeException) t;
  }

  /** Waits for one request (itself bounded by the call timeout, plus a margin). */
  private <T> T await(CompletableFuture<T> call) {
    try {
      return call.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      throw new StoreException(
          Kind.UNAVAILABLE, "PUT " + store + " key '" + key + "': interrupted", null, e);
    } catch (ExecutionException e) {
      throw asStore(e.getCause());
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new StoreException(
          Kind.UNAVAILABLE, "PUT " + store + " key '" + key + "': timed out", null, e);
    }
  }

  /**
   * Aborts the upload and waits for the answer (at most {@link #ABORT_WAIT_MS} ms, or the store's
   * timeout if shorter: a hung store must not double a failed put's time), so that a caller who
   * sees the put fail finds no upload left behind, and a process that exits on the failure leaves
   * none either; best effort: a lifecycle rule cleans up what this misses.
   */
  private void abort(String uploadId) {
    try {
      client
          .abortMultipartUpload(
              b ->
                  b.bucket(bucket)
                      .key(objectKey)
                      .uploadId(uploadId)
                      .overrideConfiguration(override()))
          .handle((r, t) -> null)
          .get(Math.min(ABORT_WAIT_MS, timeout.toMillis()), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // bounded: the put's own failure is what the caller hears
    }
  }

  private AwsRequestOverrideConfiguration override() {
    return AwsRequestOverrideConfiguration.builder().apiCallTimeout(timeout).build();
  }
}
