package io.ankusa.claimcheck.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SliceRule;
import java.util.regex.Pattern;

/**
 * The architecture rules, each as one ArchUnit rule (the tests say which modules' classes each
 * reads); stateless, thread-safe.
 */
final class Rules {

  static final String ROOT = "io.ankusa.claimcheck";
  static final String INTERNAL = ROOT + ".internal..";

  private Rules() {}

  /** Nothing outside core names a class under core's {@code internal} packages. */
  static ArchRule noInternalsOutsideCore() {
    return noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage(INTERNAL)
        .as("no class outside core depends on " + INTERNAL)
        .because(
            "core's internals are no API: the collector and the surfaces use the facade"
                + " (ClaimCheck, ref, store, config)");
  }

  /**
   * The layers: the Kafka surfaces (the serde with Streams, Connect, the CLI) on top of core, none
   * using another, none used by core; the collector on core, used by the CLI alone. (Their arrow
   * into core's internals is {@link #noInternalsOutsideCore}'s.)
   */
  static ArchRule layers() {
    return layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Serde")
        .definedBy(ROOT + ".kafka..")
        .layer("Connect")
        .definedBy(ROOT + ".connect..")
        .layer("CLI")
        .definedBy(ROOT + ".cli..")
        .layer("Collector")
        .definedBy(ROOT + ".collect..")
        .layer("Gateway")
        .definedBy(ROOT + ".gateway..")
        .layer("Core")
        .definedBy(
            ROOT,
            ROOT + ".ref..",
            ROOT + ".store..",
            ROOT + ".config..",
            ROOT + ".time..",
            INTERNAL)
        .whereLayer("Serde")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Connect")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("CLI")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Collector")
        .mayOnlyBeAccessedByLayers("CLI")
        .whereLayer("Gateway")
        .mayNotBeAccessedByAnyLayer()
        .as(
            "layers: Serde, Connect, CLI, Gateway apart, over core; the collector over core, for the"
                + " CLI");
  }

  /** Each of our packages is a slice: no package cycle. */
  static SliceRule noPackageCycles() {
    return slices()
        .assignedFrom(PACKAGES)
        .should()
        .beFreeOfCycles()
        .as("packages under " + ROOT + " form no cycle");
  }

  /**
   * Core's packages form no cycle but the one shape allowed (as in core's {@code
   * PackageCyclesTest}): a public facade's factory naming its {@code internal} implementation,
   * {@code ClaimCheck.open} and {@code internal.Engine}.
   */
  static SliceRule noPackageCyclesButFacadeFactories() {
    return noPackageCycles()
        .ignoreDependency(
            classAndNested(ROOT + ".ClaimCheck"), resideInAPackage(ROOT + ".internal"))
        .as("core's packages form no cycle (but a facade's factory naming its implementation)");
  }

  /** Only the S3 store names the AWS SDK. */
  static ArchRule awsSdkOnlyInStoreS3() {
    return noClasses()
        .that()
        .resideOutsideOfPackage(ROOT + ".store.s3..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("software.amazon.awssdk..")
        .as("only " + ROOT + ".store.s3 depends on the AWS SDK");
  }

  /** Only telemetry names Micrometer (users pass a registry as an Object). */
  static ArchRule micrometerOnlyInTelemetry() {
    return noClasses()
        .that()
        .resideOutsideOfPackage(ROOT + ".internal.telemetry..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.micrometer..")
        .as("only " + ROOT + ".internal.telemetry depends on Micrometer");
  }

  /**
   * In the gateway (an application owning its Prometheus registry) only {@code gateway.metrics}
   * names Micrometer; the rest hands the registry on as an Object.
   */
  static ArchRule micrometerOnlyInGatewayMetrics() {
    return noClasses()
        .that()
        .resideOutsideOfPackage(ROOT + ".gateway.metrics..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.micrometer..")
        .as("in the gateway only " + ROOT + ".gateway.metrics depends on Micrometer");
  }

  /** Only Kafka's public API: the jars load on kafka-clients 3.7 to 4.4. */
  static ArchRule noKafkaInternals() {
    return noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.kafka..internals..")
        .as("no class depends on org.apache.kafka..internals..")
        .because("the jars must load on kafka-clients 3.7 to 4.4: only Kafka's public API");
  }

  private static DescribedPredicate<HasName> classAndNested(String name) {
    return nameMatching(Pattern.quote(name) + "(\\$.*)?");
  }

  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          String p = c.getPackageName();
          boolean ours = p.equals(ROOT) || p.startsWith(ROOT + ".");
          return ours ? SliceIdentifier.of(p) : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
          return "one slice per package under " + ROOT;
        }
      };
}
