package io.ankusa.claimcheck.store.s3;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Gathers the body of a ranged GET straight into one array sized from its {@code Content-Length},
 * keeping only the bytes of the range asked for; one instance serves one call (the SDK calls {@link
 * #prepare()} again for each attempt, which starts afresh), driven by the SDK's threads one signal
 * at a time.
 *
 * <p>Invariants: what is kept never exceeds the range's {@code length}, whatever the answer
 * announces (a {@code Content-Length} is trusted only to size the array up to that bound; when it
 * is absent the array grows, still capped at {@code length}); of a {@code 200} (the server ignored
 * the range: the whole object) only the bytes from {@code offset} on are kept; every body byte is
 * counted, kept or not, so {@link RangeResponses} can check the body against its headers. Unlike
 * the SDK's {@code toBytes()} (a growing stream, re-copied as it grows, then copied out), each byte
 * is copied once, from the network buffer into the answer.
 */
final class RangeBody implements AsyncResponseTransformer<GetObjectResponse, RangeBody.Answer> {

  /** A GET's answer: its response, the bytes kept from {@code from} on, and the body's size. */
  record Answer(GetObjectResponse response, byte[] kept, long bodyBytes) {}

  private final long offset;
  private final int length;
  private volatile Attempt attempt;

  RangeBody(long offset, int length) {
    this.offset = offset;
    this.length = length;
  }

  @Override
  public CompletableFuture<Answer> prepare() {
    Attempt a = new Attempt();
    attempt = a;
    return a.result;
  }

  @Override
  public void onResponse(GetObjectResponse response) {
    attempt.onResponse(response);
  }

  @Override
  public void onStream(SdkPublisher<ByteBuffer> publisher) {
    publisher.subscribe(attempt);
  }

  @Override
  public void exceptionOccurred(Throwable error) {
    attempt.result.completeExceptionally(error);
  }

  @Override
  public String name() {
    return "ClaimCheckRangeBody";
  }

  /** One attempt's state; the SDK signals it serially (reactive-streams rule 1.3). */
  private final class Attempt implements Subscriber<ByteBuffer> {
    final CompletableFuture<Answer> result = new CompletableFuture<>();
    private GetObjectResponse response;
    private long skip; // body bytes before the part kept (a 200's offset)
    private byte[] kept = new byte[0];
    private int keptCount;
    private long bodyBytes;

    void onResponse(GetObjectResponse r) {
      response = r;
      boolean whole = r.sdkHttpResponse() != null && r.sdkHttpResponse().statusCode() == 200;
      skip = whole ? offset : 0;
      Long announced = r.contentLength();
      if (announced != null && announced >= 0) {
        // Sized once from the headers, never past the range asked for.
        kept = new byte[(int) Math.max(0, Math.min(length, announced - skip))];
      }
    }

    @Override
    public void onSubscribe(Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(ByteBuffer buffer) {
      int n = buffer.remaining();
      long start = bodyBytes; // body position of this buffer's first byte
      bodyBytes += n;
      long from = Math.max(start, skip);
      long to = Math.min(bodyBytes, skip + length);
      if (from >= to) {
        return; // entirely before or after the part kept: counted only
      }
      int count = (int) (to - from);
      if (keptCount + count > kept.length) {
        // No (or a too small) Content-Length: grow, capped at the range asked for.
        kept =
            Arrays.copyOf(
                kept,
                (int)
                    Math.min(
                        length,
                        Math.max(keptCount + (long) count, Math.max(8192, 2L * kept.length))));
      }
      int position = buffer.position() + (int) (from - start);
      buffer.duplicate().position(position).get(kept, keptCount, count);
      keptCount += count;
    }

    @Override
    public void onError(Throwable t) {
      result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      byte[] bytes = keptCount == kept.length ? kept : Arrays.copyOf(kept, keptCount);
      result.complete(new Answer(response, bytes, bodyBytes));
    }
  }
}
