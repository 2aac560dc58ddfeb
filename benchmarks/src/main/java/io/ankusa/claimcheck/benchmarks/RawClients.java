package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The raw SDK clients the harnesses measure us against; stateless and thread-safe. */
final class RawClients {

  private RawClients() {}

  /**
   * The raw synchronous client ({@code raw-sync}): Apache 5, up to 128 connections, to {@code
   * endpoint} (the server itself, or a link in front of it) with {@code s3}'s region and keys, and
   * the SDK's own checksums only where required, as our stores are built.
   */
  static S3Client sync(EmbeddedS3 s3, URI endpoint) {
    return S3Client.builder()
        .httpClient(Apache5HttpClient.builder().maxConnections(128).build())
        .endpointOverride(endpoint)
        .region(Region.of(s3.region()))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .build();
  }
}
