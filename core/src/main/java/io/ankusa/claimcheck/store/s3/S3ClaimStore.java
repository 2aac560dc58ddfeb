package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.s3.S3Failures.Op;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * A {@link ClaimStore} on one S3 bucket and key prefix, over an AWS SDK v2 async client that makes
 * exactly one attempt per call; thread-safe.
 *
 * <p>Invariants: the client never retries (callers own retries); every call is bounded by the
 * smaller of its {@code timeout} and the store's operation timeout, as the SDK's call timeout
 * (covering its attempts); every failure completes the returned future with a {@link
 * StoreException} classified by {@link S3Failures}; a put-if-absent sends {@code If-None-Match: *},
 * so it never replaces an object (only {@link #put} does) — a pack of at least the multipart
 * threshold goes up as a {@link MultipartPut}, completed with the same condition. A ranged read's
 * answer is checked by {@link RangeResponses}: one that does not match what was asked (its body
 * gathered by {@link RangeBody} into one array never larger than the range asked for; a 206 without
 * or with another Content-Range, a body shorter or longer than announced) is asked again once
 * within the same timeout, then is {@code UNAVAILABLE} — never wrong bytes, never a final answer. A
 * HEAD's 404 (zero-length read) is confirmed by a one-byte GET, whose error code tells a missing
 * key from a missing bucket. Bytes handed to {@link #putIfAbsent} are read, not copied, and must
 * not change until its future completes.
 */
final class S3ClaimStore implements ClaimStore {

  private final S3AsyncClient client;
  private final String bucket;
  private final String prefix;
  private final String description;
  private final Duration operationTimeout;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** A call shorter than this is not worth running inline: the caller's wait is over. */
  private static final long MIN_INLINE_NANOS = 1_000_000;

  private final Runnable afterClose;
  private final Ticker ticker;
  private final int multipartThreshold;
  private final int partSize;
  private final InlineS3 inline;

  S3ClaimStore(S3AsyncClient client, S3Settings settings) {
    this(client, settings, () -> {});
  }

  /** {@code afterClose} releases what the client does not own (its event loop threads). */
  S3ClaimStore(S3AsyncClient client, S3Settings settings, Runnable afterClose) {
    this(client, settings, afterClose, Ticker.system());
  }

  /** {@code ticker} measures what is left of a read's timeout for its one re-ask. */
  S3ClaimStore(S3AsyncClient client, S3Settings settings, Runnable afterClose, Ticker ticker) {
    this(client, settings, afterClose, ticker, null);
  }

  /**
   * {@code inline} (null for none) serves the calls a thread lets run on itself ({@link
   * InlineCalls}); the store closes it.
   */
  S3ClaimStore(
      S3AsyncClient client,
      S3Settings settings,
      Runnable afterClose,
      Ticker ticker,
      InlineS3 inline) {
    this.inline = inline;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.afterClose = Objects.requireNonNull(afterClose, "afterClose");
    this.multipartThreshold = settings.multipartThreshold();
    this.partSize = settings.partSize();
    this.client = Objects.requireNonNull(client, "client");
    this.bucket = settings.bucket();
    this.prefix = settings.prefix();
    this.description = settings.location();
    this.operationTimeout = settings.operationTimeout();
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    return put(key, List.of(Objects.requireNonNull(bytes, "bytes")), timeout, false);
  }

  /** One PUT whose body is the parts in order, none copied below the multipart threshold. */
  @Override
  public CompletableFuture<Void> putPartsIfAbsent(
      String key, List<byte[]> parts, Duration timeout) {
    return put(key, parts, timeout, false);
  }

  /**
   * A PUT without {@code If-None-Match}: S3 replaces an object atomically (a GET sees the old or
   * the new one, whole) and lists it with the PUT's time — or, for a multipart upload, its start.
   */
  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    return put(key, List.of(Objects.requireNonNull(bytes, "bytes")), timeout, true);
  }

  /**
   * One PUT of the concatenation of {@code parts}, with {@code If-None-Match: *} unless {@code
   * replace}: on the calling thread when it allows it, else through the asynchronous client; an
   * object of at least the multipart threshold goes up (joined first, if in parts) as a {@link
   * MultipartPut}.
   */
  private CompletableFuture<Void> put(
      String key, List<byte[]> parts, Duration timeout, boolean replace) {
    long length = 0;
    for (byte[] p : parts) {
      length += p.length;
    }
    String objectKey = objectKey(key);
    Duration t = effectiveTimeout(timeout);
    if (t == null) {
      return expired(Op.PUT, key, timeout);
    }
    if (length >= multipartThreshold) {
      if (parts.size() > 1) { // only a put-if-absent comes in parts: joined, it comes back here
        return ClaimStore.super.putPartsIfAbsent(key, parts, timeout);
      }
      return complete(
          new MultipartPut(client, bucket, objectKey, parts.get(0), partSize, override(t), replace)
              .run(t.toNanos()),
          Op.PUT,
          key,
          r -> null);
    }
    long allowed = inline != null && inline.available() ? InlineCalls.remainingNanos() : 0;
    if (allowed >= MIN_INLINE_NANOS) {
      return inlinePut(objectKey, key, parts, length, replace, bound(t, allowed));
    }
    ByteBuffer[] body = new ByteBuffer[parts.size()];
    for (int i = 0; i < body.length; i++) {
      body[i] = ByteBuffer.wrap(parts.get(i));
    }
    return asyncPut(
        objectKey, key, AsyncRequestBody.fromByteBuffersUnsafe(body), length, replace, t);
  }

  /** One PUT of {@code body} ({@code length} bytes) through the asynchronous client. */
  private CompletableFuture<Void> asyncPut(
      String objectKey,
      String key,
      AsyncRequestBody body,
      long length,
      boolean replace,
      Duration t) {
    return complete(
        client.putObject(
            b ->
                b.bucket(bucket)
                    .key(objectKey)
                    .ifNoneMatch(replace ? null : "*")
                    .contentLength(length)
                    .overrideConfiguration(override(t)),
            body),
        Op.PUT,
        key,
        r -> null);
  }

  /**
   * A {@link StreamedPut}: the calling thread reads the source part by part, at most {@value
   * #STREAM_PARTS_IN_FLIGHT} parts in flight, completed with {@code If-None-Match: *}.
   */
  @Override
  public long putStreamIfAbsent(
      String key, java.io.InputStream source, long length, Duration timeout)
      throws java.io.IOException {
    Objects.requireNonNull(source, "source");
    String objectKey = objectKey(key);
    Duration t = effectiveTimeout(timeout);
    if (t == null) {
      throw new StoreException(
          Kind.UNAVAILABLE,
          "PUT " + description + " key '" + key + "': timeout " + timeout + " already passed");
    }
    return new StreamedPut(
            client, bucket, objectKey, partSize, STREAM_PARTS_IN_FLIGHT, t, description, key)
        .run(source, length);
  }

  /** How many parts of one streamed put are held (read, uploading) at once. */
  static final int STREAM_PARTS_IN_FLIGHT = 4;

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must not be negative: " + offset);
    }
    if (length < 0) {
      throw new IllegalArgumentException("length must not be negative: " + length);
    }
    if (offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException("offset + length overflows: " + offset + " + " + length);
    }
    String objectKey = objectKey(key);
    Duration t = effectiveTimeout(timeout);
    if (t == null) {
      return expired(length == 0 ? Op.HEAD : Op.GET, key, timeout);
    }
    long started = ticker.read();
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    if (length == 0) {
      // No byte range can be empty: ask whether the object exists instead.
      client
          .headObject(b -> b.bucket(bucket).key(objectKey).overrideConfiguration(override(t)))
          .whenComplete(
              (response, failure) -> {
                if (failure == null) {
                  result.complete(new byte[0]);
                  return;
                }
                Error error = S3Failures.error(failure);
                if (error != null) {
                  result.completeExceptionally(error);
                  return;
                }
                StoreException e = S3Failures.classify(failure, Op.HEAD, description, key);
                if (e.kind() == Kind.NOT_FOUND) {
                  // A HEAD's 404 has no error code (no body): a one-byte GET says which 404 it is.
                  rangedGet(result, objectKey, key, 0, 1, true, t, started, null);
                } else {
                  result.completeExceptionally(e);
                }
              });
      return result;
    }
    long allowed = inline != null && inline.available() ? InlineCalls.remainingNanos() : 0;
    if (allowed >= MIN_INLINE_NANOS) {
      return new InlineRangedGet(inline, ticker, description, MIN_INLINE_NANOS)
          .run(
              objectKey,
              key,
              offset,
              length,
              t,
              started,
              allowed,
              (rest, firstProblem) -> {
                CompletableFuture<byte[]> r = new CompletableFuture<>();
                rangedGet(
                    r, objectKey, key, offset, length, false, rest, ticker.read(), firstProblem);
                return r;
              });
    }
    rangedGet(result, objectKey, key, offset, length, false, t, started, null);
    return result;
  }

  private CompletableFuture<Void> inlinePut(
      String objectKey, String key, List<byte[]> parts, long length, boolean replace, Duration t) {
    try {
      inline.put(objectKey, parts, length, replace, t);
      return CompletableFuture.completedFuture(null);
    } catch (RuntimeException | Error failure) {
      return CompletableFuture.failedFuture(S3Failures.outcome(failure, Op.PUT, description, key));
    }
  }

  /** The smaller of {@code t} and {@code allowedNanos}. */
  private static Duration bound(Duration t, long allowedNanos) {
    return allowedNanos < t.toNanos() ? Duration.ofNanos(allowedNanos) : t;
  }

  /**
   * Asks for {@code [offset, offset + length)} and completes {@code result} with its checked bytes
   * (none when {@code existsOnly}); an answer that does not match the range asked for is asked
   * again once, within what is left of {@code budget}, then is {@code UNAVAILABLE}.
   */
  private void rangedGet(
      CompletableFuture<byte[]> result,
      String objectKey,
      String key,
      long offset,
      int length,
      boolean existsOnly,
      Duration budget,
      long started,
      String firstProblem) {
    Duration t = firstProblem == null ? budget : remaining(budget, started);
    if (t == null) {
      result.completeExceptionally(
          new StoreException(
              Kind.UNAVAILABLE,
              Op.GET
                  + " "
                  + description
                  + " key '"
                  + key
                  + "': a malformed answer ("
                  + firstProblem
                  + ") and no time left to ask again"));
      return;
    }
    long last = offset + length - 1;
    client
        .getObject(
            b ->
                b.bucket(bucket)
                    .key(objectKey)
                    .range("bytes=" + offset + "-" + last)
                    .overrideConfiguration(override(t)),
            new RangeBody(offset, length))
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                if (isRangeNotSatisfiable(failure)) {
                  result.complete(new byte[0]); // offset at or past the end of the object
                } else {
                  result.completeExceptionally(
                      S3Failures.outcome(failure, Op.GET, description, key));
                }
                return;
              }
              byte[] bytes;
              try {
                GetObjectResponse r = response.response();
                bytes =
                    RangeResponses.check(
                        r.sdkHttpResponse().statusCode(),
                        response.kept(),
                        response.bodyBytes(),
                        r.contentRange(),
                        r.contentLength(),
                        offset,
                        length);
              } catch (IllegalStateException bad) {
                if (firstProblem == null) {
                  rangedGet(
                      result,
                      objectKey,
                      key,
                      offset,
                      length,
                      existsOnly,
                      budget,
                      started,
                      bad.getMessage());
                } else {
                  result.completeExceptionally(
                      new StoreException(
                          Kind.UNAVAILABLE,
                          Op.GET
                              + " "
                              + description
                              + " key '"
                              + key
                              + "': answered a ranged read wrongly twice ("
                              + firstProblem
                              + "; then "
                              + bad.getMessage()
                              + ")",
                          null,
                          bad));
                }
                return;
              }
              result.complete(existsOnly ? new byte[0] : bytes);
            });
  }

  /** What is left of {@code budget} since {@code started}; null when under a millisecond. */
  static Duration remaining(Ticker ticker, Duration budget, long started) {
    Duration left = budget.minusNanos(ticker.read() - started);
    return left.toMillis() < 1 ? null : left;
  }

  private Duration remaining(Duration budget, long started) {
    return remaining(ticker, budget, started);
  }

  /**
   * One HeadObject: its ContentLength and LastModified (the time a listing reports). A HEAD's 404
   * carries no error code, so a one-byte ranged read tells a missing key from a missing bucket.
   */
  @Override
  public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
    String objectKey = objectKey(key);
    Duration t = effectiveTimeout(timeout);
    if (t == null) {
      return expired(Op.HEAD, key, timeout);
    }
    CompletableFuture<StoredObject> result = new CompletableFuture<>();
    client
        .headObject(b -> b.bucket(bucket).key(objectKey).overrideConfiguration(override(t)))
        .whenComplete(
            (response, failure) -> {
              if (failure == null) {
                if (response.lastModified() == null || response.contentLength() == null) {
                  result.completeExceptionally(
                      new StoreException(
                          Kind.UNAVAILABLE,
                          description + ": HEAD " + key + " gave no last-modified time or size"));
                } else {
                  result.complete(
                      new StoredObject(key, response.contentLength(), response.lastModified()));
                }
                return;
              }
              Error error = S3Failures.error(failure);
              if (error != null) {
                result.completeExceptionally(error);
                return;
              }
              StoreException e = S3Failures.classify(failure, Op.HEAD, description, key);
              if (e.kind() != Kind.NOT_FOUND) {
                result.completeExceptionally(e);
                return;
              }
              getRange(key, 0, 1, t)
                  .whenComplete(
                      (bytes, again) ->
                          result.completeExceptionally(
                              again != null
                                  ? StoreException.of(again)
                                  : new StoreException(
                                      Kind.UNAVAILABLE,
                                      description
                                          + ": "
                                          + key
                                          + " appeared while it was looked up")));
            });
    return result;
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    String objectKey = objectKey(key);
    Duration t = effectiveTimeout(timeout);
    if (t == null) {
      return expired(Op.DELETE, key, timeout);
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    client
        .deleteObject(b -> b.bucket(bucket).key(objectKey).overrideConfiguration(override(t)))
        .whenComplete(
            (response, failure) -> {
              StoreException e =
                  failure == null
                      ? null
                      : S3Failures.classify(failure, Op.DELETE, description, key);
              if (e == null || e.kind() == Kind.NOT_FOUND) {
                result.complete(null); // absent is deleted
              } else {
                result.completeExceptionally(e);
              }
            });
    return result;
  }

  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    Duration t = effectiveTimeout(timeout);
    return t == null
        ? expired(Op.GET, "?list " + keyPrefix, timeout)
        : new S3Listing(client, bucket, prefix, description).list(keyPrefix, continuation, t);
  }

  @Override
  public CompletableFuture<Void> deleteAll(List<String> keys, Duration timeout) {
    Duration t = effectiveTimeout(timeout);
    return t == null
        ? expired(Op.DELETE, keys.size() + " keys", timeout)
        : new S3Listing(client, bucket, prefix, description).deleteAll(keys, t);
  }

  @Override
  public String describe() {
    return description;
  }

  /** How many inline call timeouts are armed now (0 when no inline call runs): for tests. */
  int armedInlineTimeouts() {
    return inline == null ? 0 : inline.armedTimeouts();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        client.close();
      } finally {
        try {
          if (inline != null) {
            inline.close();
          }
        } finally {
          afterClose.run();
        }
      }
    }
  }

  @Override
  public String toString() {
    return "S3ClaimStore[" + description + "]";
  }

  private static boolean isRangeNotSatisfiable(Throwable failure) {
    Throwable t = failure;
    while (t.getCause() != null && !(t instanceof SdkServiceException)) {
      t = t.getCause();
    }
    return t instanceof SdkServiceException se && se.statusCode() == 416;
  }

  private <R, T> CompletableFuture<T> complete(
      CompletableFuture<R> call, Op op, String key, Function<R, T> onSuccess) {
    CompletableFuture<T> result = new CompletableFuture<>();
    call.whenComplete(
        (response, failure) -> {
          if (failure == null) {
            result.complete(onSuccess.apply(response));
          } else {
            result.completeExceptionally(S3Failures.outcome(failure, op, description, key));
          }
        });
    return result;
  }

  private String objectKey(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    return prefix + key;
  }

  /** The smaller of {@code timeout} and the operation timeout; null when nothing is left. */
  private Duration effectiveTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    Duration t = timeout.compareTo(operationTimeout) < 0 ? timeout : operationTimeout;
    return t.toMillis() < 1 ? null : t;
  }

  private <T> CompletableFuture<T> expired(Op op, String key, Duration timeout) {
    return CompletableFuture.failedFuture(
        new StoreException(
            Kind.UNAVAILABLE,
            op + " " + description + " key '" + key + "': timeout " + timeout + " already passed"));
  }

  /**
   * Bounds a call by {@code t}, all its attempts together. No attempt timeout: the only further
   * attempts ({@link StaleConnectionRetry}) follow a failure within milliseconds, so an attempt
   * bound equal to the call's never fires first, and each one would cost a timer per request.
   */
  private static AwsRequestOverrideConfiguration override(Duration t) {
    return AwsRequestOverrideConfiguration.builder().apiCallTimeout(t).build();
  }
}
