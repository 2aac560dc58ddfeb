package io.ankusa.claimcheck.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SliceRule;

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
   * The layers: the Kafka surfaces (the serde with Streams, Connect, the CLI) on top, none using
   * another, none used by core; the collector on core, used by the CLI alone; then core's rooms:
   * the facade ({@code ClaimCheck} and its package-private implementation, with the shared runtimes
   * of {@code internal}) over the writer ({@code internal.write}) and the redeemer ({@code
   * internal.redeem}), which never use each other (the streamed claims, {@code internal.stream},
   * over the redeemer), over the engine's parts (placement, reader, cache, breakers, backoff,
   * telemetry, compression, the pack format, failures, wire fields) and the store SPI with its
   * stores; the ref model and the clock at the bottom, using none of them. (The surfaces' arrow
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
        .layer("Facade")
        .definedBy(ROOT, ROOT + ".internal")
        .layer("Writer")
        .definedBy(ROOT + ".internal.write..")
        .layer("Redeemer")
        .definedBy(ROOT + ".internal.redeem..")
        .layer("Streams")
        .definedBy(ROOT + ".internal.stream..")
        .layer("Parts")
        .definedBy(
            ROOT + ".internal.placement..",
            ROOT + ".internal.reader..",
            ROOT + ".internal.cache..",
            ROOT + ".internal.breaker..",
            ROOT + ".internal.schedule..",
            ROOT + ".internal.telemetry..",
            ROOT + ".internal.compress..",
            ROOT + ".internal.pack..",
            ROOT + ".internal.failure..",
            ROOT + ".internal.crypto..",
            ROOT + ".internal.wire..")
        .layer("Collector")
        .definedBy(ROOT + ".collect..")
        .layer("Gateway")
        .definedBy(ROOT + ".gateway..")
        .layer("Config")
        .definedBy(ROOT + ".config..")
        .layer("Stores")
        .definedBy(ROOT + ".store..")
        .layer("Keks")
        .definedBy(ROOT + ".crypto..")
        .layer("Model")
        .definedBy(ROOT + ".ref..", ROOT + ".time..")
        .whereLayer("Serde")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Connect")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("CLI")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Facade")
        .mayOnlyBeAccessedByLayers("Serde", "Connect", "CLI", "Collector", "Gateway")
        .whereLayer("Writer")
        .mayOnlyBeAccessedByLayers("Facade")
        .whereLayer("Redeemer")
        .mayOnlyBeAccessedByLayers("Facade", "Streams")
        .whereLayer("Streams")
        .mayOnlyBeAccessedByLayers("Facade")
        .whereLayer("Parts")
        .mayOnlyBeAccessedByLayers("Facade", "Writer", "Redeemer", "Streams", "Config")
        .whereLayer("Collector")
        .mayOnlyBeAccessedByLayers("CLI")
        .whereLayer("Gateway")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Stores")
        .mayOnlyAccessLayers("Model")
        .whereLayer("Keks")
        .mayOnlyAccessLayers("Model")
        .whereLayer("Model")
        .mayNotAccessAnyLayer()
        .as(
            "layers: Serde, Connect, CLI, Gateway apart (the collector for the CLI), over the facade, over"
                + " the writer and the redeemer (apart; the streams over the redeemer), over the"
                + " engine's parts and the store SPI,"
                + " over the ref model");
  }

  /** Each of our packages is a slice: no package cycle. */
  static SliceRule noPackageCycles() {
    return slices()
        .assignedFrom(PACKAGES)
        .should()
        .beFreeOfCycles()
        .as("packages under " + ROOT + " form no cycle");
  }

  /** Only the S3 store and the AWS KMS KEK provider name the AWS SDK. */
  static ArchRule awsSdkOnlyInStoreS3() {
    return noClasses()
        .that()
        .resideOutsideOfPackages(ROOT + ".store.s3..", ROOT + ".crypto.awskms..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("software.amazon.awssdk..")
        .as("only " + ROOT + ".store.s3 and " + ROOT + ".crypto.awskms depend on the AWS SDK");
  }

  /** Only the Azure store names the Azure SDK (and the Reactor it is built on). */
  static ArchRule azureSdkOnlyInStoreAzure() {
    return noClasses()
        .that()
        .resideOutsideOfPackage(ROOT + ".store.azure..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("com.azure..", "reactor..")
        .as("only " + ROOT + ".store.azure depends on the Azure SDK");
  }

  /**
   * Only the GCS store names the Google Cloud SDK: its client, the HTTP and auth libraries under it
   * and the Apache HTTP client its transport runs on. (Tink and protobuf, under {@code
   * com.google.crypto} and {@code com.google.protobuf}, are not the GCS SDK.)
   */
  static ArchRule gcsSdkOnlyInStoreGcs() {
    return noClasses()
        .that()
        .resideOutsideOfPackage(ROOT + ".store.gcs..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "com.google.cloud..", "com.google.api..", "com.google.auth..", "org.apache.http..")
        .as("only " + ROOT + ".store.gcs depends on the Google Cloud SDK");
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
   * In the gateway (an application owning its Prometheus registry) only {@code gateway.telemetry}
   * names Micrometer; the rest hands the registry on as an Object.
   */
  static ArchRule micrometerOnlyInGatewayMetrics() {
    return noClasses()
        .that()
        .resideOutsideOfPackage(ROOT + ".gateway.telemetry..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.micrometer..")
        .as("in the gateway only " + ROOT + ".gateway.telemetry depends on Micrometer");
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
