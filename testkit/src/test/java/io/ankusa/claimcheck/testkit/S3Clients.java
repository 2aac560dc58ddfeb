package io.ankusa.claimcheck.testkit;

import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/** Builds single-attempt AWS SDK clients for the testkit's ITs; thread-safe. */
final class S3Clients {

  /**
   * One event loop (daemon threads, never closed) for every Netty client of the testkit's ITs: a
   * client on the SDK's own loop takes Netty's default 2 s quiet period to close, and what these
   * tests prove does not include how an SDK client shuts down.
   */
  private static final SdkEventLoopGroup LOOP =
      SdkEventLoopGroup.create(
          new NioEventLoopGroup(2, new DefaultThreadFactory("testkit-it-clients", true)));

  private S3Clients() {}

  /** A Netty HTTP client builder on the shared loop: its clients close at once. */
  static NettyNioAsyncHttpClient.Builder netty() {
    return NettyNioAsyncHttpClient.builder().eventLoopGroup(LOOP);
  }

  static S3AsyncClient client(URI endpoint, EmbeddedS3 s3, String secret, Duration timeout) {
    return S3AsyncClient.builder()
        .endpointOverride(endpoint)
        .region(Region.of(s3.region()))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), secret)))
        .httpClientBuilder(netty())
        .overrideConfiguration(
            c ->
                c.retryStrategy(AwsRetryStrategy.doNotRetry())
                    .apiCallAttemptTimeout(timeout)
                    .apiCallTimeout(timeout))
        .build();
  }

  static S3AsyncClient client(URI endpoint, EmbeddedS3 s3) {
    return client(endpoint, s3, s3.secretKey(), Duration.ofSeconds(5));
  }

  static void put(S3AsyncClient c, String bucket, String key, byte[] bytes) {
    c.putObject(b -> b.bucket(bucket).key(key), AsyncRequestBody.fromBytes(bytes)).join();
  }

  static byte[] get(S3AsyncClient c, String bucket, String key) {
    return c.getObject(b -> b.bucket(bucket).key(key), AsyncResponseTransformer.toBytes())
        .join()
        .asByteArray();
  }
}
