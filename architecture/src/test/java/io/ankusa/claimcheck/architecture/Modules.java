package io.ankusa.claimcheck.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.core.importer.Locations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarFile;

/**
 * The production classes of each module the rules read, imported once per test JVM; thread-safe.
 *
 * <p>A module's classes are found where one of its classes was loaded from: {@code target/classes}
 * or the module's jar in {@code target} (the reactor hands over the jar from {@code package} on).
 * Only those locations are imported: never a test class, never a third-party jar (classes they name
 * are stubs, see {@code archunit.properties}). A module found anywhere but under the checkout (a
 * stale copy in the local repository, when the build ran without {@code -am}) is refused.
 */
enum Modules {
  CORE("io.ankusa.claimcheck.ClaimCheck"),
  COLLECTOR("io.ankusa.claimcheck.collect.Collector"),
  SERDE("io.ankusa.claimcheck.kafka.ClaimCheckSerializer"),
  CONNECT("io.ankusa.claimcheck.connect.CheckIn"),
  CLI("io.ankusa.claimcheck.cli.ClaimCheckCli"),
  GATEWAY("io.ankusa.claimcheck.gateway.Gateway"),
  STORE_AZURE("io.ankusa.claimcheck.store.azure.AzureStoreProvider"),
  STORE_GCS("io.ankusa.claimcheck.store.gcs.GcsStoreProvider"),
  EXAMPLES("io.ankusa.claimcheck.examples.Demo");

  private static final Map<Modules, JavaClasses> IMPORTED = new ConcurrentHashMap<>();

  private final String anchor;

  Modules(String anchor) {
    this.anchor = anchor;
  }

  /** This module's production classes. */
  JavaClasses classes() {
    return IMPORTED.computeIfAbsent(this, Modules::load);
  }

  /** The production classes of {@code modules} together. */
  static JavaClasses of(Modules... modules) {
    List<Path> locations = new ArrayList<>();
    for (Modules m : modules) {
      locations.add(m.location());
    }
    return importFrom(locations);
  }

  /**
   * The production classes of {@code modules} and, test code included, the classes of {@code
   * packages} on the class path (for the rules' own fixtures).
   */
  static JavaClasses withPackages(List<String> packages, Modules... modules) {
    List<Location> where = new ArrayList<>();
    for (Modules m : modules) {
      where.add(locationOf(m.location()));
    }
    for (String p : packages) {
      where.addAll(Locations.ofPackage(p));
    }
    return new ClassFileImporter().importLocations(where);
  }

  private static JavaClasses load(Modules m) {
    return importFrom(List.of(m.location()));
  }

  private Path location() {
    Path where;
    try {
      Class<?> c = Class.forName(anchor, false, Modules.class.getClassLoader());
      where = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (ClassNotFoundException | URISyntaxException e) {
      throw new IllegalStateException(name() + ": cannot locate " + anchor, e);
    }
    String root = System.getProperty("claimcheck.arch.root");
    Path checkout = root == null ? null : Path.of(root).toAbsolutePath().normalize();
    if (checkout != null && !where.toAbsolutePath().normalize().startsWith(checkout)) {
      throw new IllegalStateException(
          name()
              + " was loaded from "
              + where
              + ", not from this checkout: build with -am (mvn -pl architecture -am verify)");
    }
    return where;
  }

  private static JavaClasses importFrom(List<Path> locations) {
    List<Location> where = new ArrayList<>();
    for (Path p : locations) {
      where.add(locationOf(p));
    }
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importLocations(where);
  }

  private static Location locationOf(Path p) {
    if (Files.isDirectory(p)) {
      return Location.of(p);
    }
    try (JarFile jar = new JarFile(p.toFile())) {
      return Location.of(jar);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
