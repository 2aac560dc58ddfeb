package io.ankusa.claimcheck.store.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.StoreSpec;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A file store's root and pack permissions are what the configuration says. */
class FileStoreProviderTest {

  @Test
  void theRootAndPermissionsComeFromTheUriAndSettings() {
    List<StoreSpec> s = new ClaimCheckConfig(Map.of(
        "claimcheck.stores", "file:///var/claims,file:///var/other",
        "claimcheck.store.1.file.permissions", "rw-rw----")).stores();
    assertThat(FileStoreProvider.root(s.get(0).uri())).isEqualTo(Path.of("/var/claims"));
    assertThat(PosixFilePermissions.toString(FileStoreProvider.permissions(s.get(0).settings())))
        .isEqualTo(FileStores.DEFAULT_PERMISSIONS);
    assertThat(FileStoreProvider.root(s.get(1).uri())).isEqualTo(Path.of("/var/other"));
    assertThat(PosixFilePermissions.toString(FileStoreProvider.permissions(s.get(1).settings())))
        .isEqualTo("rw-rw----");
  }
}
