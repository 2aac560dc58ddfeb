package io.ankusa.claimcheck.store.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A file store's root and pack permissions are what the configuration says. */
class FileStoreProviderTest {

  @Test
  void theRootAndPermissionsComeFromTheUriAndSettings() {
    List<StoreSpec> s =
        new ClaimCheckConfig(
                Map.of(
                    "claimcheck.stores", "file:///var/claims,file:///var/other",
                    "claimcheck.store.1.file.permissions", "rw-rw----"))
            .stores();
    assertThat(FileStoreProvider.root(s.get(0).uri())).isEqualTo(Path.of("/var/claims"));
    assertThat(PosixFilePermissions.toString(FileStoreProvider.permissions(s.get(0).settings())))
        .isEqualTo(FileStores.DEFAULT_PERMISSIONS);
    assertThat(FileStoreProvider.root(s.get(1).uri())).isEqualTo(Path.of("/var/other"));
    assertThat(PosixFilePermissions.toString(FileStoreProvider.permissions(s.get(1).settings())))
        .isEqualTo("rw-rw----");
  }

  @Test
  void createIsOffByDefaultAndSetLibraryWideOrPerStore(@org.junit.jupiter.api.io.TempDir Path tmp)
      throws Exception {
    String a = tmp.resolve("a").toUri().toString();
    String b = tmp.resolve("b").toUri().toString();
    String c = tmp.resolve("c").toUri().toString();
    List<StoreSpec> off =
        new ClaimCheckConfig(
                Map.of("claimcheck.stores", a + "," + b, "claimcheck.store.1.file.create", "true"))
            .stores();
    assertThat(off.get(0).settings().getBoolean(FileStoreProvider.CREATE)).isFalse();
    assertThat(off.get(1).settings().getBoolean(FileStoreProvider.CREATE)).isTrue();
    List<StoreSpec> on =
        new ClaimCheckConfig(
                Map.of(
                    "claimcheck.stores",
                    c + "," + a,
                    ClaimCheckConfig.FILE_CREATE,
                    "true",
                    "claimcheck.store.1.file.create",
                    "false"))
            .stores();
    assertThat(on.get(0).settings().getBoolean(FileStoreProvider.CREATE)).isTrue();
    assertThat(on.get(1).settings().getBoolean(FileStoreProvider.CREATE)).isFalse();
    // What the setting does, through the provider: only the store with create makes its root.
    for (StoreSpec spec : List.of(off.get(0), off.get(1))) {
      try (var store = spec.open()) {
        store
            .putIfAbsent("t/k", new byte[1], java.time.Duration.ofSeconds(10))
            .handle((v, e) -> v)
            .join();
      }
    }
    assertThat(tmp.resolve("a")).doesNotExist();
    assertThat(tmp.resolve("b").resolve(StoreRoot.MARKER)).isRegularFile();
    assertThat(tmp.resolve("b").resolve("t/k")).isRegularFile();
  }
}
