package io.ankusa.claimcheck.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class EmbeddedS3IT {

  private static final String BUCKET = EmbeddedS3.shared().createBucket("testkit-s3-it");
  private static S3AsyncClient c;

  @BeforeAll
  static void client() {
    c = S3Clients.client(EmbeddedS3.shared().endpoint(), EmbeddedS3.shared());
  }

  @AfterAll
  static void closeClient() {
    c.close();
  }

  @Test
  void sharedIsOneServer() {
    assertThat(EmbeddedS3.shared()).isSameAs(EmbeddedS3.shared());
    assertThat(EmbeddedS3.shared().endpoint().getHost()).isEqualTo("127.0.0.1");
    assertThat(EmbeddedS3.shared().region()).isEqualTo("us-east-1");
  }

  @Test
  void claimCheckConfigIsANewMutableMapOfTheStoresAndThisServersKeys() {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    Map<String, Object> m = s3.claimCheckConfig("s3://b/p");
    assertThat(m)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "claimcheck.stores",
                "s3://b/p",
                "claimcheck.s3.endpoint",
                s3.endpoint().toString(),
                "claimcheck.s3.region",
                "us-east-1",
                "claimcheck.s3.path.style.access",
                "true",
                "claimcheck.s3.access.key.id",
                s3.accessKey(),
                "claimcheck.s3.secret.access.key",
                s3.secretKey()));
    m.put("claimcheck.tenant", "t");
    assertThat(s3.claimCheckConfig("s3://b/p")).doesNotContainKey("claimcheck.tenant");

    URI proxy = URI.create("http://127.0.0.1:1");
    Map<String, Object> viaProxy = s3.claimCheckConfig("s3://b", proxy);
    assertThat(viaProxy).containsEntry("claimcheck.s3.endpoint", "http://127.0.0.1:1");
    viaProxy.put("claimcheck.s3.endpoint", s3.endpoint().toString());
    viaProxy.put("claimcheck.stores", "s3://b/p");
    assertThat(viaProxy).isEqualTo(s3.claimCheckConfig("s3://b/p"));
  }

  @Test
  void putThenGetAndRangedGetReturnTheBytes() {
    byte[] bytes = "0123456789".getBytes(StandardCharsets.US_ASCII);
    S3Clients.put(c, BUCKET, "a/b", bytes);
    assertThat(S3Clients.get(c, BUCKET, "a/b")).isEqualTo(bytes);
    byte[] range =
        c.getObject(
                b -> b.bucket(BUCKET).key("a/b").range("bytes=3-5"),
                AsyncResponseTransformer.toBytes())
            .join()
            .asByteArray();
    assertThat(new String(range, StandardCharsets.US_ASCII)).isEqualTo("345");
  }

  @Test
  void objectsReadsTheStoredBytesOfEveryKeyUnderAPrefixAtAnyDepth() {
    String bucket = EmbeddedS3.shared().createBucket("testkit-objects-it");
    byte[] one = "one".getBytes(StandardCharsets.US_ASCII);
    byte[] two = new byte[70_000];
    new java.util.Random(7).nextBytes(two);
    S3Clients.put(c, bucket, "t/ab/0011", one);
    S3Clients.put(c, bucket, "t/0022", two);
    S3Clients.put(c, bucket, "other/0033", one);
    java.util.Map<String, byte[]> under = EmbeddedS3.shared().objects(bucket, "t/");
    assertThat(under).containsOnlyKeys("t/ab/0011", "t/0022");
    assertThat(under.get("t/ab/0011")).isEqualTo(one);
    assertThat(under.get("t/0022")).isEqualTo(two);
    assertThat(EmbeddedS3.shared().objects(bucket, null)).hasSize(3);
  }

  @Test
  void aMissingKeyIsNoSuchKey() {
    Throwable t = catchThrowable(() -> S3Clients.get(c, BUCKET, "missing"));
    assertThat(t)
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(NoSuchKeyException.class);
  }

  @Test
  void aWrongSecretIsForbidden() {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    try (S3AsyncClient wrong =
        S3Clients.client(s3.endpoint(), s3, "wrong", Duration.ofSeconds(5))) {
      Throwable t = catchThrowable(() -> S3Clients.get(wrong, BUCKET, "whatever"));
      assertThat(t.getCause()).isInstanceOf(S3Exception.class);
      assertThat(((S3Exception) t.getCause()).statusCode()).isEqualTo(403);
    }
  }

  @Test
  void putIfNoneMatchStarRefusesASecondWriteWith412() {
    c.putObject(
            b -> b.bucket(BUCKET).key("once").ifNoneMatch("*"),
            AsyncRequestBody.fromString("first"))
        .join();
    Throwable t =
        catchThrowable(
            () ->
                c.putObject(
                        b -> b.bucket(BUCKET).key("once").ifNoneMatch("*"),
                        AsyncRequestBody.fromString("second"))
                    .join());
    assertThat(((S3Exception) t.getCause()).statusCode()).isEqualTo(412);
    assertThat(new String(S3Clients.get(c, BUCKET, "once"), StandardCharsets.UTF_8))
        .isEqualTo("first");
  }

  @Test
  void aSecondOwnedServerIsIndependentAndCloses() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI endpoint;
    try (EmbeddedS3 own = EmbeddedS3.start()) {
      endpoint = own.endpoint();
      assertThat(endpoint).isNotEqualTo(EmbeddedS3.shared().endpoint());
      own.createBucket("own");
      HttpResponse<String> unsigned =
          http.send(
              HttpRequest.newBuilder(endpoint.resolve("/own/k")).build(), BodyHandlers.ofString());
      // An S3 server answers: with an S3 XML error (it does not hold the key).
      assertThat(unsigned.statusCode()).isBetween(400, 499);
      assertThat(unsigned.body()).contains("<Error>").contains("<Code>");
    }
    Throwable t =
        catchThrowable(
            () -> http.send(HttpRequest.newBuilder(endpoint).build(), BodyHandlers.discarding()));
    assertThat(t).isInstanceOf(ConnectException.class);
  }
}
