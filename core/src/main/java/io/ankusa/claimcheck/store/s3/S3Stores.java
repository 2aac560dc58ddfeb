package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Objects;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.S3BaseClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;

/** Creates S3 claim stores; stateless and thread-safe. */
final class S3Stores {

  private S3Stores() {}

  /**
   * Returns a store on {@code settings}' bucket and prefix: an AWS SDK v2 async client (Netty or
   * CRT HTTP client, {@link S3Settings#httpClient()}) that makes one attempt per call (a second
   * only for a request that met a connection the server had closed: {@link StaleConnectionRetry}),
   * bounded by the operation timeout, and classifies every outcome by HTTP status. Getting a
   * connection is bounded apart, by {@link S3Settings#connectionAcquisitionTimeout()}, so a store
   * that refuses connections fails fast and the writer moves on to the next store. Close it to
   * release its connections and threads.
   *
   * <p>With {@link S3Settings#inlineCalls()}, a thread that allows it ({@link
   * io.ankusa.claimcheck.store.InlineCalls}) has its ranged reads and single PUTs performed on
   * itself, through a synchronous twin of the client ({@link InlineS3}), built on first use.
   *
   * <p>The SDK's own checksums are asked for only where S3 requires them, so S3-compatible servers
   * without the newer checksum headers work too; packs carry their own checksums, which readers
   * verify.
   *
   * @throws IllegalStateException when the client cannot be built (for example no region is set and
   *     the AWS default region chain finds none)
   */
  public static ClaimStore create(S3Settings settings) {
    Objects.requireNonNull(settings, "settings");
    HttpClients.Built http = HttpClients.build(settings);
    AwsCredentialsProvider credentials = credentials(settings);
    S3AsyncClientBuilder b =
        common(S3AsyncClient.builder(), settings, credentials, null)
            .httpClientBuilder(http.builder());
    InlineS3 inline =
        settings.inlineCalls()
            ? new InlineS3(
                timer ->
                    common(S3Client.builder(), settings, credentials, timer)
                        .httpClientBuilder(HttpClients.buildSync(settings))
                        .build(),
                settings.bucket())
            : null;
    try {
      return new S3ClaimStore(b.build(), settings, http.afterClose(), Ticker.system(), inline);
    } catch (RuntimeException e) {
      http.afterClose().run();
      if (!(e instanceof SdkException)) {
        throw e;
      }
      throw new IllegalStateException(
          "cannot create the S3 client for " + settings.location() + ": " + e.getMessage(), e);
    }
  }

  /**
   * What the asynchronous client and the synchronous one for inline calls share: endpoint, region,
   * path style, credentials, checksums only where S3 requires them, the one retry, the timeout
   * (armed on {@code timer} when not null, else on the SDK's own).
   */
  private static <B extends S3BaseClientBuilder<B, ?>> B common(
      B b,
      S3Settings settings,
      AwsCredentialsProvider credentials,
      java.util.concurrent.ScheduledExecutorService timer) {
    b.forcePathStyle(settings.pathStyleAccess())
        .credentialsProvider(credentials)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(
            c -> {
              c.retryStrategy(StaleConnectionRetry.strategy())
                  .apiCallTimeout(settings.operationTimeout());
              if (timer != null) {
                c.scheduledExecutorService(timer);
              }
            });
    settings.endpoint().ifPresent(b::endpointOverride);
    settings.region().map(Region::of).ifPresent(b::region);
    return b;
  }

  private static AwsCredentialsProvider credentials(S3Settings settings) {
    if (settings.accessKeyId().isPresent()) {
      return StaticCredentialsProvider.create(
          AwsBasicCredentials.create(
              settings.accessKeyId().get(), settings.secretAccessKey().orElseThrow()));
    }
    return DefaultCredentialsProvider.builder().build();
  }
}
