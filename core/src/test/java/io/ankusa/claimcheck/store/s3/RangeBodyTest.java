package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

class RangeBodyTest {

  private static final byte[] WHOLE = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

  @Test
  void aPartialAnswerIsGatheredIntoOneArrayOfItsAnnouncedSize() {
    RangeBody.Answer a = run(new RangeBody(3, 3), 206, 3L, chunks(WHOLE, 3, 4, 5, 6));
    assertThat(a.kept()).containsExactly(3, 4, 5);
    assertThat(a.bodyBytes()).isEqualTo(3);
    assertThat(RangeResponses.check(206, a.kept(), a.bodyBytes(), "bytes 3-5/10", 3L, 3, 3))
        .isSameAs(a.kept());
  }

  @Test
  void aWholeObjectKeepsOnlyTheRangeAskedForAndCountsTheRest() {
    RangeBody.Answer a = run(new RangeBody(3, 3), 200, 10L, chunks(WHOLE, 0, 2, 4, 10));
    assertThat(a.kept()).containsExactly(3, 4, 5);
    assertThat(a.bodyBytes()).isEqualTo(10);
    assertThat(RangeResponses.check(200, a.kept(), a.bodyBytes(), null, 10L, 3, 3))
        .containsExactly(3, 4, 5);
    RangeBody.Answer past = run(new RangeBody(12, 3), 200, 10L, chunks(WHOLE, 0, 10));
    assertThat(past.kept()).isEmpty();
    assertThat(RangeResponses.check(200, past.kept(), past.bodyBytes(), null, 10L, 12, 3))
        .isEmpty();
  }

  @Test
  void aHugeContentLengthNeverSizesTheArrayBeyondTheRange() {
    RangeBody body = new RangeBody(0, 4);
    RangeBody.Answer a = run(body, 206, 1L << 40, chunks(WHOLE, 0, 4));
    assertThat(a.kept()).hasSize(4);
    assertThatThrownBy(
            () ->
                RangeResponses.check(206, a.kept(), a.bodyBytes(), "bytes 0-3/10", 1L << 40, 0, 4))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("announced");
  }

  @Test
  void withoutAContentLengthTheArrayGrowsButKeepsAtMostTheRange() {
    RangeBody.Answer a = run(new RangeBody(0, 4), 206, null, chunks(WHOLE, 0, 3, 7, 10));
    assertThat(a.kept()).containsExactly(0, 1, 2, 3);
    assertThat(a.bodyBytes()).isEqualTo(10); // a body longer than the range is counted, not kept
    assertThatThrownBy(
            () -> RangeResponses.check(206, a.kept(), a.bodyBytes(), "bytes 0-3/10", null, 0, 4))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the body has 10");
  }

  @Test
  void aBodyLongerThanItsContentLengthIsKeptWithinTheRangeAndRefused() {
    RangeBody.Answer a = run(new RangeBody(0, 5), 206, 2L, chunks(WHOLE, 0, 1, 5));
    assertThat(a.kept()).containsExactly(0, 1, 2, 3, 4);
    assertThatThrownBy(
            () -> RangeResponses.check(206, a.kept(), a.bodyBytes(), "bytes 0-1/10", 2L, 0, 5))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aBodyCutShortIsRefused() {
    RangeBody.Answer a = run(new RangeBody(0, 5), 206, 5L, chunks(WHOLE, 0, 3));
    assertThat(a.kept()).containsExactly(0, 1, 2);
    assertThatThrownBy(
            () -> RangeResponses.check(206, a.kept(), a.bodyBytes(), "bytes 0-4/10", 5L, 0, 5))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the body has 3");
  }

  @Test
  void eachAttemptStartsAfreshAndAFailureFailsOnlyItsOwn() {
    RangeBody body = new RangeBody(0, 3);
    CompletableFuture<RangeBody.Answer> first = body.prepare();
    body.onResponse(response(206, 3L));
    body.exceptionOccurred(new IOException("connection closed during the request"));
    assertThat(first).isCompletedExceptionally();
    RangeBody.Answer second = run(body, 206, 3L, chunks(WHOLE, 0, 3));
    assertThat(second.kept()).containsExactly(0, 1, 2);
  }

  @Test
  void aStreamErrorFailsTheAnswer() {
    RangeBody body = new RangeBody(0, 3);
    CompletableFuture<RangeBody.Answer> f = body.prepare();
    body.onResponse(response(206, 3L));
    body.onStream(
        SdkPublisher.adapt(
            s -> {
              s.onSubscribe(new NoOpSubscription());
              s.onError(new IOException("reset"));
            }));
    assertThat(f).isCompletedExceptionally();
  }

  private static RangeBody.Answer run(
      RangeBody body, int status, Long length, List<ByteBuffer> parts) {
    CompletableFuture<RangeBody.Answer> f = body.prepare();
    body.onResponse(response(status, length));
    body.onStream(
        SdkPublisher.adapt(
            (Subscriber<? super ByteBuffer> s) -> {
              s.onSubscribe(new NoOpSubscription());
              parts.forEach(s::onNext);
              s.onComplete();
            }));
    assertThat(f).isCompleted();
    return f.join();
  }

  private static GetObjectResponse response(int status, Long length) {
    return (GetObjectResponse)
        GetObjectResponse.builder()
            .contentLength(length)
            .sdkHttpResponse(SdkHttpResponse.builder().statusCode(status).build())
            .build();
  }

  /** {@code bytes} cut at the given positions, each part a buffer whose position is not 0. */
  private static List<ByteBuffer> chunks(byte[] bytes, int... cuts) {
    ByteBuffer[] parts = new ByteBuffer[cuts.length - 1];
    for (int i = 0; i < parts.length; i++) {
      byte[] padded = new byte[cuts[i + 1] - cuts[i] + 2];
      System.arraycopy(bytes, cuts[i], padded, 1, cuts[i + 1] - cuts[i]);
      parts[i] = ByteBuffer.wrap(padded, 1, cuts[i + 1] - cuts[i]);
    }
    return Arrays.asList(parts);
  }

  private static final class NoOpSubscription implements Subscription {
    @Override
    public void request(long n) {}

    @Override
    public void cancel() {}
  }
}
