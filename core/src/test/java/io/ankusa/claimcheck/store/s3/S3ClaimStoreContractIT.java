package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreContract;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The store contract on S3Proxy through the fault proxy (unreachable = the proxy down), and the S3
 * store's hostile answers: 404s that are not S3's, ranged answers that do not match.
 */
class S3ClaimStoreContractIT extends ClaimStoreContract {

  private static final String BUCKET = "store-s3-contract-it";
  private static final Duration OP_TIMEOUT = Duration.ofSeconds(5);

  private static EmbeddedS3 s3;
  private static FaultProxy proxy;
  private static ClaimStore store;

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.shared();
    s3.createBucket(BUCKET);
    proxy = FaultProxy.inFrontOf(s3);
    store = S3TestStores.store(s3, proxy.endpoint(), "s3://" + BUCKET + "/contract", OP_TIMEOUT);
  }

  @AfterAll
  static void stop() {
    store.close();
    proxy.close();
  }

  @AfterEach
  void passThrough() {
    proxy.clear();
    proxy.resetCounts();
  }

  @Override
  protected ClaimStore store() {
    return store;
  }

  @Override
  protected void makeUnavailable() {
    proxy.down();
  }

  @Override
  protected void restore() {
    proxy.up();
  }

  /**
   * Writes down what S3Proxy 4 really answers for a missing key, so the rules keep real misses
   * NOT_FOUND: GET → 404 with an XML body, code NoSuchKey, and x-amz-request-id; HEAD → 404 with no
   * body but x-amz-request-id (the SDK then names it NoSuchKey itself). A HEAD in a missing bucket
   * looks exactly like a HEAD of a missing key, which is why the store confirms a HEAD's 404 with a
   * GET.
   */
  @Test
  void whatS3ProxyAnswersForAMissingKey() {
    try (S3AsyncClient raw = rawClient()) {
      S3Exception get =
          s3Failure(
              () ->
                  raw.getObject(
                          b -> b.bucket(BUCKET).key("contract/none"),
                          AsyncResponseTransformer.toBytes())
                      .join());
      assertThat(get.statusCode()).isEqualTo(404);
      assertThat(get.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey");
      SdkHttpResponse getHttp = get.awsErrorDetails().sdkHttpResponse();
      assertThat(getHttp.firstMatchingHeader("x-amz-request-id")).isPresent();
      assertThat(getHttp.firstMatchingHeader("Content-Type").orElse(""))
          .startsWith("application/xml");

      S3Exception head =
          s3Failure(() -> raw.headObject(b -> b.bucket(BUCKET).key("contract/none")).join());
      assertThat(head.statusCode()).isEqualTo(404);
      assertThat(head.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-request-id"))
          .isPresent();
      assertThat(head.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey"); // made up by the SDK

      S3Exception headNoBucket =
          s3Failure(() -> raw.headObject(b -> b.bucket("no-such-bucket-here").key("k")).join());
      assertThat(headNoBucket.statusCode()).isEqualTo(404);
      assertThat(headNoBucket.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey");
      S3Exception getNoBucket =
          s3Failure(
              () ->
                  raw.getObject(
                          b -> b.bucket("no-such-bucket-here").key("k"),
                          AsyncResponseTransformer.toBytes())
                      .join());
      assertThat(getNoBucket.awsErrorDetails().errorCode()).isEqualTo("NoSuchBucket");
    }
    // Through the store: both real misses stay NOT_FOUND.
    StoreException get = failure(store.getRange("none", 0, 10, T));
    assertThat(get.kind()).as("%s", get).isEqualTo(Kind.NOT_FOUND);
    StoreException head = failure(store.getRange("none", 0, 0, T));
    assertThat(head.kind()).as("%s", head).isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void aMissingBucketIsUnavailableForGetAndHead() {
    try (ClaimStore noBucket =
        S3TestStores.store(s3, proxy.endpoint(), "s3://no-such-bucket-here/x", OP_TIMEOUT)) {
      assertThat(failure(noBucket.getRange("k", 0, 10, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      StoreException head = failure(noBucket.getRange("k", 0, 0, T));
      assertThat(head.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(head).hasMessageContaining("bucket does not exist");
    }
  }

  @Test
  void anHtml404IsUnavailableNotNotFound() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.inject(Fault.htmlNotFound());
    for (String k : new String[] {key, freshKey()}) {
      StoreException get = failure(store.getRange(k, 0, 10, T));
      assertThat(get.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(get).hasMessageContaining("without an S3 error code");
      StoreException head = failure(store.getRange(k, 0, 0, T));
      assertThat(head.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(head).hasMessageContaining("x-amz-request-id");
    }
    proxy.clear();
    assertThat(store.getRange(key, 0, 10, T).join()).isEqualTo(bytes(10));
  }

  @Test
  void a206WithoutContentRangeIsAskedAgainOnceThenUnavailable() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(100), T).join();
    proxy.inject(Fault.partialWithoutContentRange(), "GET");
    proxy.resetCounts();
    StoreException e = failure(store.getRange(key, 10, 20, T));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e).hasMessageContaining("without a Content-Range").hasMessageContaining("twice");
    assertThat(proxy.requestCount("GET")).isEqualTo(2);

    proxy.clear();
    proxy.failTimes(1, Fault.partialWithoutContentRange(), "GET");
    proxy.resetCounts();
    assertThat(store.getRange(key, 10, 20, T).join())
        .isEqualTo(Arrays.copyOfRange(bytes(100), 10, 30));
    assertThat(proxy.requestCount("GET")).isEqualTo(2);
  }

  @Test
  void aTruncatedBodyIsAskedAgainOnceThenUnavailable() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(100), T).join();
    proxy.inject(Fault.truncatedBody(), "GET");
    proxy.resetCounts();
    StoreException e = failure(store.getRange(key, 0, 40, T));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e).hasMessageContaining("but the body has 30");
    assertThat(proxy.requestCount("GET")).isEqualTo(2);
    // The end of the object cut short too: never fewer bytes than the object holds.
    assertThat(failure(store.getRange(key, 90, 40, T)).kind()).isEqualTo(Kind.UNAVAILABLE);

    proxy.clear();
    proxy.failTimes(1, Fault.truncatedBody(), "GET");
    proxy.resetCounts();
    assertThat(store.getRange(key, 0, 40, T).join()).isEqualTo(Arrays.copyOf(bytes(100), 40));
    assertThat(proxy.requestCount("GET")).isEqualTo(2);
  }

  @Test
  void aWholeObjectAnswerToARangeIsSliced() {
    String key = freshKey();
    byte[] value = bytes(100);
    store.putIfAbsent(key, value, T).join();
    proxy.inject(Fault.wholeObjectForRange(), "GET");
    proxy.resetCounts();
    assertThat(store.getRange(key, 10, 20, T).join()).isEqualTo(Arrays.copyOfRange(value, 10, 30));
    assertThat(store.getRange(key, 95, 20, T).join()).isEqualTo(Arrays.copyOfRange(value, 95, 100));
    assertThat(store.getRange(key, 99, 1, T).join()).containsExactly(value[99]);
    assertThat(proxy.requestCount("GET")).isEqualTo(3);
  }

  private static S3AsyncClient rawClient() {
    return S3AsyncClient.builder()
        .endpointOverride(s3.endpoint())
        .region(Region.of(s3.region()))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build();
  }

  private static S3Exception s3Failure(Runnable call) {
    try {
      call.run();
      throw new AssertionError("expected an S3 error");
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(S3Exception.class);
      return (S3Exception) e.getCause();
    }
  }
}
