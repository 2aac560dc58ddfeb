package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Answers that arrive after a multipart put has already failed on its timeout change nothing: no
 * part goes up after a late {@code CreateMultipartUpload}, and parts that succeed late complete
 * nothing. The second is the regression: the put completed the upload once its late parts had
 * succeeded, racing its own abort, so an object could appear after the caller had been told the put
 * failed. The fake client's answers are completed by hand.
 */
class MultipartPutLateAnswersTest {

  private static final int PART = 4;
  private static final long TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** An S3 client whose multipart answers the test completes; it records every request. */
  private static final class HeldClient implements S3AsyncClient {
    final CompletableFuture<CreateMultipartUploadResponse> create = new CompletableFuture<>();
    final List<CompletableFuture<UploadPartResponse>> parts = new ArrayList<>();
    final List<String> requests = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<CreateMultipartUploadResponse> createMultipartUpload(
        CreateMultipartUploadRequest r) {
      requests.add("create");
      return create;
    }

    @Override
    public synchronized CompletableFuture<UploadPartResponse> uploadPart(
        UploadPartRequest r, AsyncRequestBody body) {
      requests.add("part " + r.partNumber());
      CompletableFuture<UploadPartResponse> f = new CompletableFuture<>();
      parts.add(f);
      return f;
    }

    @Override
    public synchronized CompletableFuture<CompleteMultipartUploadResponse> completeMultipartUpload(
        CompleteMultipartUploadRequest r) {
      requests.add("complete");
      return CompletableFuture.completedFuture(CompleteMultipartUploadResponse.builder().build());
    }

    @Override
    public synchronized CompletableFuture<AbortMultipartUploadResponse> abortMultipartUpload(
        AbortMultipartUploadRequest r) {
      requests.add("abort " + r.uploadId());
      return CompletableFuture.completedFuture(AbortMultipartUploadResponse.builder().build());
    }

    synchronized List<String> requests() {
      return List.copyOf(requests);
    }

    @Override
    public String serviceName() {
      return "s3";
    }

    @Override
    public void close() {}
  }

  private static CompletableFuture<Void> put(HeldClient client) {
    return new MultipartPut(client, "b", "k", new byte[2 * PART], PART, null).run(TIMEOUT_NANOS);
  }

  private static void assertTimedOut(CompletableFuture<Void> put) {
    assertThatThrownBy(put::join)
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void aCreateThatAnswersAfterTheTimeoutUploadsNoPartAndIsAborted() {
    HeldClient client = new HeldClient();
    CompletableFuture<Void> put = put(client);
    assertTimedOut(put);

    client.create.complete(CreateMultipartUploadResponse.builder().uploadId("u1").build());

    assertThat(client.requests()).containsExactly("create", "abort u1");
  }

  @Test
  void partsThatSucceedAfterTheTimeoutCompleteNothing() {
    HeldClient client = new HeldClient();
    client.create.complete(CreateMultipartUploadResponse.builder().uploadId("u2").build());
    CompletableFuture<Void> put = put(client);
    assertTimedOut(put);

    List<CompletableFuture<UploadPartResponse>> held;
    synchronized (client) {
      held = List.copyOf(client.parts);
    }
    held.forEach(p -> p.complete(UploadPartResponse.builder().eTag("e").build()));

    assertThat(client.requests()).containsExactly("create", "part 1", "part 2", "abort u2");
  }

  @Test
  void aPutThatDoesNotTimeOutCompletesAsBefore() {
    HeldClient client = new HeldClient();
    client.create.complete(CreateMultipartUploadResponse.builder().uploadId("u3").build());
    CompletableFuture<Void> put =
        new MultipartPut(client, "b", "k", new byte[2 * PART], PART, null)
            .run(TimeUnit.SECONDS.toNanos(60));
    List<CompletableFuture<UploadPartResponse>> held;
    synchronized (client) {
      held = List.copyOf(client.parts);
    }
    held.forEach(p -> p.complete(UploadPartResponse.builder().eTag("e").build()));

    put.join();
    assertThat(client.requests()).containsExactly("create", "part 1", "part 2", "complete");
  }
}
