package io.ankusa.claimcheck.crypto.awskms;

import io.ankusa.claimcheck.crypto.KekProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.kms.KmsAsyncClient;
import software.amazon.awssdk.services.kms.KmsAsyncClientBuilder;

/**
 * The {@code aws-kms:KEY-ARN-OR-ALIAS} KEKs: data keys from {@code GenerateDataKey} (AES-256, the
 * tenant as encryption context), unwrapped by {@code Decrypt}; thread-safe. The client is built
 * like the S3 stores' (Netty async HTTP client; static keys from {@code
 * claimcheck.encryption.aws-kms.access.key.id}/{@code .secret.access.key}, else the default
 * credential chain; {@code .endpoint} overrides the endpoint; {@code .region}, else the key ARN's
 * region, else the default region chain), one attempt per call bounded by {@code .timeout.ms}: the
 * library retries an unavailable KMS itself, inside the redeem's deadline.
 */
public final class AwsKmsKekProvider implements KekProvider {

  /** The scheme. */
  public static final String SCHEME = "aws-kms";

  /** The event loop's quiet period on close: Netty's default is 2 s (as the S3 stores' loop). */
  private static final long QUIET_MS = 100;

  @Override
  public Set<String> schemes() {
    return Set.of(SCHEME);
  }

  @Override
  public void validate(String kekId, Map<String, String> settings) {
    reference(kekId);
    endpoint(settings);
  }

  @Override
  public Kek open(String kekId, Map<String, String> settings) {
    String ref = reference(kekId);
    Duration timeout =
        Duration.ofMillis(Long.parseLong(settings.getOrDefault("timeout.ms", "2000")));
    RetryStrategy once = AwsRetryStrategy.doNotRetry();
    // Our own event loop, so closing the KEK (every ClaimCheck with an aws-kms KEK) does not sit
    // through Netty's default 2 s quiet period, as the S3 stores' HttpClients.
    EventLoopGroup loop =
        new NioEventLoopGroup(1, new DefaultThreadFactory("claimcheck-kms", true));
    Runnable closeLoop = () -> loop.shutdownGracefully(QUIET_MS, 5_000, TimeUnit.MILLISECONDS);
    try {
      KmsAsyncClientBuilder b =
          KmsAsyncClient.builder()
              .httpClientBuilder(
                  NettyNioAsyncHttpClient.builder()
                      .connectionTimeout(timeout)
                      .eventLoopGroup(SdkEventLoopGroup.create(loop)))
              .credentialsProvider(credentials(settings))
              .overrideConfiguration(
                  c ->
                      c.retryStrategy(once).apiCallAttemptTimeout(timeout).apiCallTimeout(timeout));
      endpoint(settings).ifPresent(b::endpointOverride);
      region(ref, settings).map(Region::of).ifPresent(b::region);
      return new AwsKmsKek(kekId, ref, b.build(), closeLoop);
    } catch (SdkException e) {
      closeLoop.run();
      throw new IllegalArgumentException(
          "cannot create the KMS client for " + kekId + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeLoop.run();
      throw e;
    }
  }

  /** The key ARN or alias of {@code kekId}. */
  static String reference(String kekId) {
    if (!kekId.startsWith(SCHEME + ":") || kekId.length() == SCHEME.length() + 1) {
      throw new IllegalArgumentException(
          "an AWS KMS KEK is aws-kms:KEY-ARN-OR-ALIAS (arn:aws:kms:..., alias/name), not '"
              + kekId
              + "'");
    }
    return kekId.substring(SCHEME.length() + 1);
  }

  private static Optional<URI> endpoint(Map<String, String> settings) {
    String e = settings.getOrDefault("endpoint", "");
    if (e.isBlank()) {
      return Optional.empty();
    }
    try {
      URI u = URI.create(e.trim());
      if (u.getScheme() == null || u.getHost() == null) {
        throw new IllegalArgumentException("the KMS endpoint '" + e + "' is not an absolute URI");
      }
      return Optional.of(u);
    } catch (IllegalArgumentException x) {
      throw new IllegalArgumentException("the KMS endpoint '" + e + "' is not a URI", x);
    }
  }

  /** The configured region, else an ARN's ({@code arn:aws:kms:REGION:...}). */
  static Optional<String> region(String ref, Map<String, String> settings) {
    String r = settings.getOrDefault("region", "");
    if (!r.isBlank()) {
      return Optional.of(r.trim());
    }
    String[] parts = ref.split(":", 6);
    if (parts.length >= 6 && parts[0].equals("arn") && parts[2].equals("kms")) {
      return Optional.of(parts[3]);
    }
    return Optional.empty();
  }

  private static AwsCredentialsProvider credentials(Map<String, String> settings) {
    String id = settings.get("access.key.id");
    if (id != null) {
      return StaticCredentialsProvider.create(
          AwsBasicCredentials.create(id, settings.get("secret.access.key")));
    }
    return DefaultCredentialsProvider.builder().build();
  }
}
