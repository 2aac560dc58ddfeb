package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The blocking GET's body reader ({@link RangeRead}, inline calls) keeps and counts exactly what
 * the asynchronous one ({@link RangeBody}) does, for any body, range, status, announced length and
 * read sizes — so {@link RangeResponses} judges both the same.
 */
class RangeReadPropertiesTest {

  @Property(tries = 500)
  void keepsAndCountsWhatTheAsynchronousReaderKeepsAndCounts(
      @ForAll @Size(max = 300) byte[] body,
      @ForAll @IntRange(max = 320) int offset,
      @ForAll @IntRange(min = 1, max = 320) int length,
      @ForAll boolean whole,
      @ForAll @IntRange(min = -1, max = 400) int announced,
      @ForAll @IntRange(min = 1, max = 64) int readSize)
      throws IOException {
    int status = whole ? 200 : 206;
    Long contentLength = announced < 0 ? null : (long) announced;
    GetObjectResponse r = response(status, contentLength);

    RangeBody.Answer async = viaRangeBody(new RangeBody(offset, length), r, body, readSize);
    RangeBody.Answer sync =
        new RangeRead(offset, length)
            .transform(r, AbortableInputStream.create(new Trickle(body, readSize)));

    assertThat(sync.kept()).isEqualTo(async.kept());
    assertThat(sync.bodyBytes()).isEqualTo(async.bodyBytes()).isEqualTo(body.length);
    assertThat(sync.kept().length).isLessThanOrEqualTo(length);
  }

  private static RangeBody.Answer viaRangeBody(
      RangeBody b, GetObjectResponse r, byte[] body, int chunk) {
    List<ByteBuffer> parts = new ArrayList<>();
    for (int i = 0; i < body.length; i += chunk) {
      parts.add(ByteBuffer.wrap(body, i, Math.min(chunk, body.length - i)).slice());
    }
    CompletableFuture<RangeBody.Answer> f = b.prepare();
    b.onResponse(r);
    b.onStream(
        SdkPublisher.adapt(
            (Subscriber<? super ByteBuffer> s) -> {
              s.onSubscribe(
                  new Subscription() {
                    @Override
                    public void request(long n) {}

                    @Override
                    public void cancel() {}
                  });
              parts.forEach(s::onNext);
              s.onComplete();
            }));
    return f.join();
  }

  private static GetObjectResponse response(int status, Long length) {
    return (GetObjectResponse)
        GetObjectResponse.builder()
            .contentLength(length)
            .sdkHttpResponse(SdkHttpResponse.builder().statusCode(status).build())
            .build();
  }

  /** A stream that hands out at most {@code max} bytes per read, as a socket may. */
  private static final class Trickle extends InputStream {
    private final ByteArrayInputStream in;
    private final int max;

    Trickle(byte[] bytes, int max) {
      this.in = new ByteArrayInputStream(bytes);
      this.max = max;
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return in.read(b, off, Math.min(len, max));
    }
  }
}
