package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.time.Ticker;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 store's calls on the calling thread ({@link io.ankusa.claimcheck.store.InlineCalls}),
 * through a synchronous SDK client built on first use; thread-safe.
 *
 * <p>The synchronous client is the asynchronous one's twin (same endpoint, credentials, checksums,
 * connection bounds, no retries but {@link StaleConnectionRetry}), on a blocking HTTP client:
 * Apache 5 under a Netty store, CRT's synchronous client under a CRT store. A call is bounded by
 * the SDK's call timeout, which aborts the request (and clears the interrupt the SDK uses to wake
 * the thread); failures are thrown as the SDK's exceptions, for {@link S3Failures} to classify as
 * the asynchronous client's are. If the client cannot be built, {@link #available()} turns false
 * and the store keeps to its asynchronous client.
 *
 * <p>The call timeout is armed on a timer of this store's own ({@link #timer}, a {@link
 * LazyTimer}): one thread that drops a timeout as soon as its call ends and is not woken for one
 * due after the time it sleeps until. The SDK's default timer (five threads) keeps every cancelled
 * timeout queued until it would have fired, and its threads wake for each: a lone client GETting
 * small claims woke them about four times per GET, for nothing; a plain scheduled executor still
 * woke its thread once per call.
 */
final class InlineS3 implements AutoCloseable {

  private final Function<ScheduledExecutorService, S3Client> factory;
  private final String bucket;
  private final Object lock = new Object();
  private volatile S3Client client;
  private LazyTimer timer;
  private volatile boolean failed;
  private volatile boolean closed;

  /** {@code factory} builds the client with the given timer for its call timeouts. */
  InlineS3(Function<ScheduledExecutorService, S3Client> factory, String bucket) {
    this.factory = factory;
    this.bucket = bucket;
  }

  /** Whether calls may run inline: not closed, and the client built (or not tried yet). */
  boolean available() {
    return !failed && !closed;
  }

  /**
   * One ranged GET of {@code objectKey} on the calling thread, bounded by {@code timeout}; its body
   * gathered by {@link RangeRead}.
   */
  RangeBody.Answer get(String objectKey, long offset, int length, Duration timeout) {
    long last = offset + length - 1;
    return client()
        .getObject(
            b ->
                b.bucket(bucket)
                    .key(objectKey)
                    .range("bytes=" + offset + "-" + last)
                    .overrideConfiguration(override(timeout)),
            new RangeRead(offset, length));
  }

  /**
   * One PUT of the {@code length} bytes of {@code parts} in order (read, not copied) to {@code
   * objectKey} on the calling thread, with {@code If-None-Match: *} unless {@code replace}, bounded
   * by {@code timeout}.
   */
  void put(String objectKey, List<byte[]> parts, long length, boolean replace, Duration timeout) {
    client()
        .putObject(
            b ->
                b.bucket(bucket)
                    .key(objectKey)
                    .ifNoneMatch(replace ? null : "*")
                    .contentLength(length)
                    .overrideConfiguration(override(timeout)),
            RequestBody.fromContentProvider(
                () -> stream(parts), length, "application/octet-stream"));
  }

  /**
   * A new stream of {@code parts} in order: each attempt of a PUT reads the body from its start.
   */
  private static InputStream stream(List<byte[]> parts) {
    if (parts.size() == 1) {
      return new ByteArrayInputStream(parts.get(0));
    }
    List<InputStream> each = new ArrayList<>(parts.size());
    for (byte[] p : parts) {
      each.add(new ByteArrayInputStream(p));
    }
    return new SequenceInputStream(Collections.enumeration(each));
  }

  private S3Client client() {
    S3Client c = client;
    if (c != null) {
      return c;
    }
    synchronized (lock) {
      if (client == null) {
        if (closed) {
          throw new IllegalStateException("the store is closed");
        }
        timer = timer();
        try {
          client = factory.apply(timer);
        } catch (RuntimeException e) {
          failed = true;
          timer.shutdownNow();
          throw e;
        }
      }
      return client;
    }
  }

  /** The timer of the call timeouts ({@link LazyTimer}: no wake-up per call). */
  static LazyTimer timer() {
    return new LazyTimer("claimcheck-s3-inline-timer", Ticker.system());
  }

  /** How many call timeouts are armed now (0 once every call ended): for tests. */
  int armedTimeouts() {
    synchronized (lock) {
      return timer == null ? 0 : timer.pending();
    }
  }

  private static AwsRequestOverrideConfiguration override(Duration t) {
    return AwsRequestOverrideConfiguration.builder().apiCallTimeout(t).build();
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      if (client != null) {
        client.close();
      }
      if (timer != null) {
        timer.shutdownNow();
      }
    }
  }
}
