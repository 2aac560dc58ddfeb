package io.ankusa.claimcheck.store.s3;

import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtHttpClient;

/**
 * The only class that names the optional CRT HTTP client, so the store loads without it; stateless
 * and thread-safe.
 */
final class CrtHttpClient {

  private CrtHttpClient() {}

  /** Returns a CRT client builder bounded like the Netty one (connections, connect, acquire). */
  static SdkAsyncHttpClient.Builder<?> builder(S3Settings settings) {
    return AwsCrtAsyncHttpClient.builder()
        .maxConcurrency(settings.maxConnections())
        .connectionTimeout(settings.connectTimeout())
        .connectionAcquisitionTimeout(settings.connectionAcquisitionTimeout());
  }

  /** Returns CRT's synchronous client builder, bounded the same way, for inline calls. */
  static SdkHttpClient.Builder<?> syncBuilder(S3Settings settings) {
    return AwsCrtHttpClient.builder()
        .maxConcurrency(settings.maxConnections())
        .connectionTimeout(settings.connectTimeout())
        .connectionAcquisitionTimeout(settings.connectionAcquisitionTimeout());
  }
}
