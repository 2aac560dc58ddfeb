package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Stores on the testkit's S3 server for the ITs, and a helper to see a failure's kind.
 *
 * <p>The HTTP client is the system property {@value #HTTP_CLIENT_PROPERTY} ({@code netty} when
 * unset): core's build runs the store.s3 ITs once per client (failsafe executions {@code default}
 * and {@code s3-on-crt}), so every S3 behaviour is proven on both.
 */
final class S3TestStores {

  /** The system property naming the HTTP client the ITs' stores use. */
  static final String HTTP_CLIENT_PROPERTY = "claimcheck.it.s3.http.client";

  private S3TestStores() {}

  /** The HTTP client this run's stores use: {@code netty} or {@code crt}. */
  static String httpClient() {
    return System.getProperty(HTTP_CLIENT_PROPERTY, HttpClients.NETTY);
  }

  /**
   * The configuration of one store at {@code location} ({@code s3://bucket[/prefix]}) on {@code
   * s3}, reached at {@code endpoint}, with this run's HTTP client: a mutable map, so a test adds or
   * overrides {@code claimcheck.*} keys before {@link #create}.
   */
  static Map<String, Object> config(EmbeddedS3 s3, URI endpoint, String location) {
    Map<String, Object> m = s3.claimCheckConfig(location, endpoint);
    m.put("claimcheck.s3.http.client", httpClient());
    return m;
  }

  /** The settings of store 0 of {@code config}, parsed as the provider parses them. */
  static S3Settings settings(Map<String, ?> config) {
    StoreSpec spec = new ClaimCheckConfig(config).stores().get(0);
    return S3Settings.from(spec.uri(), spec.settings());
  }

  /** A store on store 0 of {@code config}; the caller closes it. */
  static ClaimStore create(Map<String, ?> config) {
    return S3Stores.create(settings(config));
  }

  /** The bucket of {@code s3://bucket[/prefix]}. */
  static String bucket(String location) {
    String rest = location.substring("s3://".length());
    int slash = rest.indexOf('/');
    return slash < 0 ? rest : rest.substring(0, slash);
  }

  /** The prefix of {@code s3://bucket[/prefix]} ({@code ""} when none). */
  static String prefix(String location) {
    String rest = location.substring("s3://".length());
    int slash = rest.indexOf('/');
    return slash < 0 ? "" : rest.substring(slash + 1);
  }

  static ClaimStore store(EmbeddedS3 s3, URI endpoint, String location, Duration opTimeout) {
    Map<String, Object> config = config(s3, endpoint, location);
    config.put("claimcheck.store.op.deadline.ms", String.valueOf(opTimeout.toMillis()));
    return create(config);
  }

  /** Waits for {@code f} and returns the StoreException it failed with; fails if it did not. */
  static StoreException failure(CompletableFuture<?> f) {
    try {
      Object value = f.join();
      throw new AssertionError("expected a StoreException but completed with " + value);
    } catch (CompletionException e) {
      if (e.getCause() instanceof StoreException se) {
        return se;
      }
      throw new AssertionError("expected a StoreException", e.getCause());
    }
  }

  /**
   * A plain SDK client straight to {@code s3} (no proxy), for what a test checks behind a store.
   */
  static S3Client admin(EmbeddedS3 s3) {
    return S3Client.builder()
        .endpointOverride(s3.endpoint())
        .region(Region.of(s3.region()))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build();
  }

  /** How many multipart uploads of {@code bucket} are started and neither completed nor aborted. */
  static int openUploads(S3Client admin, String bucket) {
    return admin.listMultipartUploads(b -> b.bucket(bucket)).uploads().size();
  }

  /**
   * How many multipart uploads of {@code bucket} are still open once every abort already sent has
   * had up to 10 s to land: a failed put waits for its abort only up to a bound (2 s), and on a
   * loaded machine the abort may land after it; checks that an upload is left for good, not how
   * soon the abort lands (the slow-abort regression tests check that with {@link #openUploads}).
   */
  static int openUploadsOnceAbortsLanded(S3Client admin, String bucket)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    int open = openUploads(admin, bucket);
    while (open > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
      open = openUploads(admin, bucket);
    }
    return open;
  }
}
