package io.ankusa.claimcheck.store.azure;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpHeaders;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.storage.blob.models.BlobStorageException;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.azure.AzureFailures.Op;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every answer Azure Blob Storage documents (its status and {@code x-ms-error-code}), and the ones
 * a server in the way gives, classified; the answers Azurite gives for real are in {@code
 * AzureClaimStoreContractIT}.
 */
class AzureFailuresTest {

  private static StoreException classify(int status, String code, String retryAfter, Op op) {
    HttpHeaders headers = new HttpHeaders();
    if (code != null) {
      headers.set(HttpHeaderName.fromString("x-ms-error-code"), code);
    }
    if (retryAfter != null) {
      headers.set(HttpHeaderName.RETRY_AFTER, retryAfter);
    }
    BlobStorageException e =
        new BlobStorageException("the SDK's message", new Answer(status, headers), null);
    return AzureFailures.classify(new CompletionException(e), op, "abs://a/c", "k");
  }

  @Test
  void notFoundOnlyForBlobNotFoundInAzuresOwnWords() {
    assertThat(classify(404, "BlobNotFound", null, Op.GET).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(classify(404, "BlobNotFound", null, Op.HEAD).kind()).isEqualTo(Kind.NOT_FOUND);
    StoreException container = classify(404, "ContainerNotFound", null, Op.GET);
    assertThat(container.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(container).hasMessageContaining("container does not exist");
    StoreException html = classify(404, null, null, Op.HEAD);
    assertThat(html.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(html).hasMessageContaining("without an Azure error code");
    assertThat(classify(404, "ResourceNotFound", null, Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aPutsConditionFailingIsAlreadyExistsAndOtherConflictsAreUnavailable() {
    assertThat(classify(409, "BlobAlreadyExists", null, Op.PUT).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(classify(412, "ConditionNotMet", null, Op.PUT).kind())
        .isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(classify(409, "LeaseIdMissing", null, Op.PUT).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(412, "ConditionNotMet", null, Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void serverBusyAnd429AreThrottledWithTheirRetryAfter() {
    StoreException busy = classify(503, "ServerBusy", "7", Op.GET);
    assertThat(busy.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(busy.retryAfter()).contains(Duration.ofSeconds(7));
    assertThat(classify(503, "ServerBusy", null, Op.PUT).kind()).isEqualTo(Kind.THROTTLED);
    assertThat(classify(429, null, null, Op.GET).kind()).isEqualTo(Kind.THROTTLED);
    assertThat(classify(500, "OperationTimedOut", "2", Op.GET).retryAfter())
        .contains(Duration.ofSeconds(2));
    assertThat(classify(503, "ServerBusy", "Wed, 21 Oct 2026 07:28:00 GMT", Op.GET).retryAfter())
        .isEmpty();
  }

  @Test
  void everythingElseThatCannotAnswerIsUnavailableAndForbiddenIsForbidden() {
    assertThat(classify(403, "AuthenticationFailed", null, Op.GET).kind())
        .isEqualTo(Kind.FORBIDDEN);
    assertThat(classify(503, null, null, Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(500, "InternalError", null, Op.PUT).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(classify(502, null, null, Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(AzureFailures.classify(new TimeoutException(), Op.GET, "abs://a/c", "k").kind())
        .isEqualTo(Kind.UNAVAILABLE);
    StoreException refused =
        AzureFailures.classify(
            new RuntimeException(new ConnectException("refused")), Op.PUT, "abs://a/c", "k");
    assertThat(refused.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(
            AzureFailures.outcome(
                new CompletionException(new OutOfMemoryError()), Op.GET, "s", "k"))
        .isInstanceOf(OutOfMemoryError.class);
  }

  @Test
  void messagesNeverCarryTheSdksMessage() {
    assertThat(classify(403, "AuthenticationFailed", null, Op.GET))
        .hasMessageNotContaining("the SDK's message")
        .hasMessageContaining("GET abs://a/c key 'k'")
        .hasMessageContaining("AuthenticationFailed");
  }

  /** An HTTP answer of {@code status} with {@code headers} and no body. */
  private static final class Answer extends HttpResponse {
    private final int status;
    private final HttpHeaders headers;

    Answer(int status, HttpHeaders headers) {
      super(new HttpRequest(HttpMethod.GET, "http://127.0.0.1/a/c/k"));
      this.status = status;
      this.headers = headers;
    }

    @Override
    public int getStatusCode() {
      return status;
    }

    @Override
    @Deprecated
    public String getHeaderValue(String name) {
      return headers.getValue(HttpHeaderName.fromString(name));
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public Flux<ByteBuffer> getBody() {
      return Flux.empty();
    }

    @Override
    public Mono<byte[]> getBodyAsByteArray() {
      return Mono.empty();
    }

    @Override
    public Mono<String> getBodyAsString() {
      return Mono.empty();
    }

    @Override
    public Mono<String> getBodyAsString(Charset charset) {
      return Mono.empty();
    }
  }
}
