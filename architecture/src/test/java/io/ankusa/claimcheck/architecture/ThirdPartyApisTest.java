package io.ankusa.claimcheck.architecture;

import org.junit.jupiter.api.Test;

/**
 * Where the library may name a third-party API: the AWS SDK only in the S3 store (and the AWS KMS
 * KEK provider, crypto.awskms), the Azure SDK only in the Azure store, the Google Cloud SDK only in
 * the GCS store, Micrometer only in telemetry (over the library's modules; the examples are a
 * user's code), Kafka only through its public API (the examples too). The benchmarks and the
 * testkit are not checked.
 */
class ThirdPartyApisTest {

  @Test
  void onlyStoreS3UsesTheAwsSdk() {
    Rules.awsSdkOnlyInStoreS3().check(library());
  }

  @Test
  void onlyStoreAzureUsesTheAzureSdk() {
    Rules.azureSdkOnlyInStoreAzure().check(library());
    Rules.azureSdkOnlyInStoreAzure().check(Modules.GATEWAY.classes());
  }

  @Test
  void onlyStoreGcsUsesTheGoogleCloudSdk() {
    Rules.gcsSdkOnlyInStoreGcs().check(library());
    Rules.gcsSdkOnlyInStoreGcs().check(Modules.GATEWAY.classes());
  }

  @Test
  void onlyTelemetryUsesMicrometer() {
    Rules.micrometerOnlyInTelemetry().check(library());
  }

  @Test
  void theGatewayUsesMicrometerOnlyInItsMetricsPackageAndNoAwsSdk() {
    Rules.micrometerOnlyInGatewayMetrics().check(Modules.GATEWAY.classes());
    Rules.awsSdkOnlyInStoreS3().check(Modules.GATEWAY.classes());
  }

  @Test
  void noKafkaInternals() {
    Rules.noKafkaInternals()
        .check(
            Modules.of(
                Modules.CORE,
                Modules.COLLECTOR,
                Modules.SERDE,
                Modules.CONNECT,
                Modules.CLI,
                Modules.GATEWAY,
                Modules.STORE_AZURE,
                Modules.STORE_GCS,
                Modules.EXAMPLES));
  }

  private static com.tngtech.archunit.core.domain.JavaClasses library() {
    return Modules.of(
        Modules.CORE,
        Modules.COLLECTOR,
        Modules.SERDE,
        Modules.CONNECT,
        Modules.CLI,
        Modules.STORE_AZURE,
        Modules.STORE_GCS);
  }
}
