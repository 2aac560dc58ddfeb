package io.ankusa.claimcheck.store.s3;

import static io.ankusa.claimcheck.store.s3.S3TestStores.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/** The S3 store against MinIO in a container; skipped where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class S3ClaimStoreMinioIT {

  private static final Duration T = Duration.ofSeconds(10);

  @Container
  private static final MinIOContainer MINIO =
      new MinIOContainer("minio/minio:RELEASE.2025-04-22T22-12-26Z");

  @Test
  void roundTripAndPutIfAbsent() {
    URI endpoint = URI.create(MINIO.getS3URL());
    try (S3AsyncClient admin =
        S3AsyncClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(MINIO.getUserName(), MINIO.getPassword())))
            .build()) {
      admin.createBucket(b -> b.bucket("claims")).join();
    }
    try (ClaimStore store =
        S3TestStores.create(
            Map.of(
                "claimcheck.stores", "s3://claims/minio",
                "claimcheck.s3.endpoint", endpoint.toString(),
                "claimcheck.s3.region", "us-east-1",
                "claimcheck.s3.path.style.access", "true",
                "claimcheck.s3.access.key.id", MINIO.getUserName(),
                "claimcheck.s3.secret.access.key", MINIO.getPassword(),
                "claimcheck.store.op.deadline.ms", "30000"))) {
      byte[] bytes = "0123456789".getBytes(StandardCharsets.US_ASCII);
      store.putIfAbsent("k", bytes, T).join();
      assertThat(store.getRange("k", 0, 10, T).join()).isEqualTo(bytes);
      assertThat(store.getRange("k", 3, 3, T).join())
          .isEqualTo("345".getBytes(StandardCharsets.US_ASCII));
      assertThat(store.getRange("k", 10, 3, T).join()).isEmpty();
      assertThat(failure(store.putIfAbsent("k", new byte[] {1}, T)).kind())
          .isEqualTo(Kind.ALREADY_EXISTS);
      assertThat(store.getRange("k", 0, 10, T).join()).isEqualTo(bytes);
      assertThat(failure(store.getRange("missing", 0, 10, T)).kind()).isEqualTo(Kind.NOT_FOUND);
    }
  }
}
