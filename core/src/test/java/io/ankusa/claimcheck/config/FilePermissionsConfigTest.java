package io.ankusa.claimcheck.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** {@code claimcheck.file.permissions} and its per-store override. */
class FilePermissionsConfigTest {

  private static Map<String, Object> config(String... kv) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, "file:///var/claims-a,file:///var/claims-b");
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static String perms(ClaimCheckConfig c, int store) {
    return PosixFilePermissions.toString(
        PosixFilePermissions.fromString(
            c.stores().get(store).settings().getString("file.permissions")));
  }

  @Test
  void packsAreGroupReadableByDefault() {
    ClaimCheckConfig c = new ClaimCheckConfig(config());
    assertThat(perms(c, 0)).isEqualTo("rw-r-----");
    assertThat(perms(c, 1)).isEqualTo("rw-r-----");
  }

  @Test
  void theKeyAndThePerStoreOverrideSetThem() {
    ClaimCheckConfig c =
        new ClaimCheckConfig(
            config(
                ClaimCheckConfig.FILE_PERMISSIONS,
                "rw-rw----",
                "claimcheck.store.1.file.permissions",
                "rw-r--r--"));
    assertThat(perms(c, 0)).isEqualTo("rw-rw----");
    assertThat(perms(c, 1)).isEqualTo("rw-r--r--");
  }

  @Test
  void badPermissionsThrowConfigExceptionNamingTheKey() {
    assertThatThrownBy(
            () -> new ClaimCheckConfig(config(ClaimCheckConfig.FILE_PERMISSIONS, "0640")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ClaimCheckConfig.FILE_PERMISSIONS);
    assertThatThrownBy(
            () -> new ClaimCheckConfig(config(ClaimCheckConfig.FILE_PERMISSIONS, "-w-r-----")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ClaimCheckConfig.FILE_PERMISSIONS)
        .hasMessageContaining("owner");
    assertThatThrownBy(
            () -> new ClaimCheckConfig(config("claimcheck.store.0.file.permissions", "rwx")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.file.permissions");
  }
}
