package io.ankusa.claimcheck.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;
import com.google.cloud.storage.StorageException;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Op;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Target;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Every answer GCS's JSON API documents (status and reason, with its own words), and the ones a
 * server in the way gives, classified; what the SDK makes of the stub's answers is in {@code
 * GcsClaimStoreContractIT}.
 */
class GcsFailuresTest {

  private static final Target TARGET = new Target("gs://b/p/", "k", "b", "p/k");

  private static StoreException classify(int status, String body, String retryAfter, Op op) {
    HttpHeaders headers = new HttpHeaders();
    if (retryAfter != null) {
      headers.setRetryAfter(retryAfter);
    }
    HttpResponseException http =
        new HttpResponseException.Builder(status, "status", headers).setContent(body).build();
    StorageException e = StorageException.translate(http);
    return GcsFailures.classify(new CompletionException(e), op, TARGET, null);
  }

  private static String error(int code, String reason, String message) {
    return StubObjects.error(code, reason, message);
  }

  @Test
  void notFoundOnlyForNoSuchObjectInGcsOwnWords() {
    assertThat(classify(404, error(404, "notFound", "No such object: b/p/k"), null, Op.GET).kind())
        .isEqualTo(Kind.NOT_FOUND);
    // A media download's 404 is GCS's words as text.
    assertThat(classify(404, "No such object: b/p/k", null, Op.GET).kind())
        .isEqualTo(Kind.NOT_FOUND);
    StoreException otherObject =
        classify(404, error(404, "notFound", "No such object: b/p/other"), null, Op.GET);
    assertThat(otherObject.kind()).isEqualTo(Kind.UNAVAILABLE);
    StoreException bucket =
        classify(
            404, error(404, "notFound", "The specified bucket does not exist."), null, Op.HEAD);
    assertThat(bucket.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(bucket).hasMessageContaining("bucket does not exist");
    StoreException html =
        classify(404, "<html><h1>404 Not Found</h1><hr>nginx</html>", null, Op.GET);
    assertThat(html.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(html).hasMessageContaining("without GCS's 'No such object'");
    assertThat(classify(404, "", null, Op.HEAD).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void whatTheSdkCallsAbsentIsNotFoundOnlyInGcsOwnWords() {
    assertThat(GcsFailures.absent(Op.HEAD, TARGET, null).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(
            GcsFailures.byStatus(
                    404, null, "No such object: b/p/k", Optional.empty(), Op.DELETE, TARGET, null)
                .kind())
        .isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void aPutsPreconditionFailingIsAlreadyExists() {
    String body =
        error(
            412,
            "conditionNotMet",
            "At least one of the pre-conditions you specified did not hold.");
    assertThat(classify(412, body, null, Op.PUT).kind()).isEqualTo(Kind.ALREADY_EXISTS);
    assertThat(classify(412, body, null, Op.GET).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void throttlingIsThrottledWithItsRetryAfter() {
    StoreException rate =
        classify(429, error(429, "rateLimitExceeded", "The rate ..."), "7", Op.PUT);
    assertThat(rate.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(rate.retryAfter()).contains(Duration.ofSeconds(7));
    assertThat(classify(429, "", null, Op.GET).retryAfter()).isEmpty();
    StoreException busy = classify(503, error(503, "backendError", "Backend Error"), "2", Op.GET);
    assertThat(busy.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(busy.retryAfter()).contains(Duration.ofSeconds(2));
    assertThat(classify(503, error(503, "backendError", "Backend Error"), null, Op.GET).kind())
        .isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void deniedIsForbiddenAndEverythingElseUnavailable() {
    assertThat(classify(403, error(403, "forbidden", "Forbidden"), null, Op.GET).kind())
        .isEqualTo(Kind.FORBIDDEN);
    assertThat(classify(401, error(401, "required", "Login Required"), null, Op.GET).kind())
        .isEqualTo(Kind.FORBIDDEN);
    for (int status : new int[] {400, 409, 410, 500, 502, 504}) {
      assertThat(classify(status, error(status, "x", "y"), null, Op.PUT).kind())
          .as("%d", status)
          .isEqualTo(Kind.UNAVAILABLE);
    }
    StoreException timeout =
        GcsFailures.classify(
            new StorageException(new SocketTimeoutException("Read timed out")),
            Op.GET,
            TARGET,
            null);
    assertThat(timeout.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(timeout).hasMessageContaining("timed out");
    assertThat(
            GcsFailures.classify(
                    new IOException(new ConnectException("Connection refused")),
                    Op.PUT,
                    TARGET,
                    null)
                .kind())
        .isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aMessageNamesTheStoreAndKeyButNotTheSdksWords() {
    StoreException e =
        classify(403, error(403, "forbidden", "secret-token-xyz has no access"), null, Op.GET);
    assertThat(e).hasMessageContaining("gs://b/p/").hasMessageContaining("'k'");
    assertThat(e.getMessage()).doesNotContain("secret-token-xyz");
  }

  @Test
  void retryAfterInSecondsOnly() {
    assertThat(GcsFailures.parseRetryAfter(" 12 ")).contains(Duration.ofSeconds(12));
    assertThat(GcsFailures.parseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT")).isEmpty();
    assertThat(GcsFailures.parseRetryAfter("-1")).isEmpty();
  }
}
