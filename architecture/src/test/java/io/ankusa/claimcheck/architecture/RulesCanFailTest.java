package io.ankusa.claimcheck.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each rule fails on a class that breaks it (the fixtures under {@code archfixture}, test code of
 * this module, imported with the modules they name): a rule that cannot fail would pass a broken
 * build.
 */
class RulesCanFailTest {

  private static final JavaClasses FIXTURES =
      Modules.withPackages(
          List.of("io.ankusa.claimcheck.connect.archfixture", "io.ankusa.claimcheck.archfixture"),
          Modules.CORE,
          Modules.COLLECTOR,
          Modules.SERDE,
          Modules.CONNECT,
          Modules.CLI);

  @Test
  void eachDependencyRuleNamesTheClassThatBreaksIt() {
    for (ArchRule rule :
        List.of(
            Rules.noInternalsOutsideCore(),
            Rules.layers(),
            Rules.awsSdkOnlyInStoreS3(),
            Rules.azureSdkOnlyInStoreAzure(),
            Rules.micrometerOnlyInTelemetry(),
            Rules.noKafkaInternals())) {
      assertThat(rule.evaluate(FIXTURES).getFailureReport().getDetails())
          .as(rule.getDescription())
          .anyMatch(line -> line.contains("BadSmt"));
    }
  }

  @Test
  void theGatewaysRulesNameTheClassThatBreaksThem() {
    JavaClasses fixtures =
        Modules.withPackages(
            List.of("io.ankusa.claimcheck.gateway.archfixture"), Modules.CORE, Modules.SERDE);
    for (ArchRule rule :
        List.of(
            Rules.noInternalsOutsideCore(),
            Rules.layers(),
            Rules.micrometerOnlyInGatewayMetrics())) {
      assertThat(rule.evaluate(fixtures).getFailureReport().getDetails())
          .as(rule.getDescription())
          .anyMatch(line -> line.contains("BadGateway"));
    }
  }

  @Test
  void theLayersSeeOneSurfaceUsingAnother() {
    assertThat(Rules.layers().evaluate(FIXTURES).getFailureReport().getDetails())
        .anyMatch(line -> line.contains("BadSmt") && line.contains("ClaimCheckSerializer"));
  }

  private static final JavaClasses CORE_FIXTURES =
      Modules.withPackages(
          List.of(
              "io.ankusa.claimcheck.internal.redeem.archfixture",
              "io.ankusa.claimcheck.ref.archfixture"),
          Modules.CORE);

  @Test
  void theLayersSeeTheRedeemerUsingTheWriter() {
    assertThat(Rules.layers().evaluate(CORE_FIXTURES).getFailureReport().getDetails())
        .anyMatch(line -> line.contains("BadRedeem") && line.contains("CheckIns"));
  }

  @Test
  void theLayersSeeTheRefModelUsingTheEnginesParts() {
    assertThat(Rules.layers().evaluate(CORE_FIXTURES).getFailureReport().getDetails())
        .anyMatch(line -> line.contains("BadRef") && line.contains("Checksums"));
  }

  @Test
  void theLayersSeeASurfaceOtherThanTheCliUsingTheCollector() {
    assertThat(Rules.layers().evaluate(FIXTURES).getFailureReport().getDetails())
        .anyMatch(line -> line.contains("BadSmt") && line.contains("collect.Collector"));
  }

  @Test
  void theCycleRulesSeeACycle() {
    for (ArchRule rule : List.of(Rules.noPackageCycles())) {
      assertThat(rule.evaluate(FIXTURES).getFailureReport().getDetails())
          .as(rule.getDescription())
          .anyMatch(line -> line.contains("archfixture.a") && line.contains("archfixture.b"));
    }
  }

  /**
   * The GCS rule's packages are where the store's SDK calls go, seen without the SDK's jars (this
   * module takes store-gcs without its tree): the same packages, forbidden everywhere, fail on the
   * store's own classes. (No fixture names the GCS SDK: it is not on this module's class path.)
   */
  @Test
  void theGcsRulesPackagesAreWhereTheStoreCallsTheSdk() {
    ArchRule everywhere =
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "com.google.cloud..", "com.google.api..", "com.google.auth..", "org.apache.http..");
    assertThat(everywhere.evaluate(Modules.STORE_GCS.classes()).getFailureReport().getDetails())
        .anyMatch(
            line -> line.contains("GcsClaimStore") && line.contains("com.google.cloud.storage"))
        .anyMatch(line -> line.contains("ObservingTransport") && line.contains("org.apache.http"));
  }
}
