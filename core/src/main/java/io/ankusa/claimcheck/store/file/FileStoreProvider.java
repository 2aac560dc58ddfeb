package io.ankusa.claimcheck.store.file;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.StoreConfig;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Serves {@code file:///path} stores (a local or mounted directory) and defines their setting
 * {@code file.permissions}; stateless and thread-safe.
 */
public final class FileStoreProvider implements ClaimStoreProvider {

  static final String PERMISSIONS = "file.permissions";

  private static final ConfigDef SETTINGS = new ConfigDef()
      .define(PERMISSIONS, Type.STRING, FileStores.DEFAULT_PERMISSIONS, new PermissionsValidator(),
          LOW, "The POSIX permissions of a new pack in a file:// store (like rw-r-----: readable by "
              + "the group, so readers may run as another user of it); the owner must be able to "
              + "read.");

  @Override
  public Set<String> schemes() {
    return Set.of("file");
  }

  @Override
  public ConfigDef settings() {
    return SETTINGS;
  }

  @Override
  public void validate(URI uri, StoreConfig config) {
    root(uri);
  }

  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    return FileStores.create(root(uri), permissions(config));
  }

  /** The directory of {@code uri}, which must be {@code file:///absolute/path}. */
  static Path root(URI uri) {
    if (uri.isOpaque() || uri.getPath() == null || uri.getPath().isEmpty()
        || uri.getAuthority() != null) {
      throw new IllegalArgumentException("a file store is file:///absolute/path");
    }
    return Path.of(uri);
  }

  /** The permissions new packs get. */
  static Set<PosixFilePermission> permissions(StoreConfig config) {
    return PosixFilePermissions.fromString(config.getString(PERMISSIONS).trim());
  }

  /** Accepts POSIX permissions like {@code rw-r-----} that let the owner read. */
  static final class PermissionsValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      Set<PosixFilePermission> perms;
      try {
        perms = PosixFilePermissions.fromString(String.valueOf(value).trim());
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, "not POSIX permissions like rw-r----- (9 of r, w, x, -)");
      }
      if (!perms.contains(PosixFilePermission.OWNER_READ)) {
        throw new ConfigException(name, value, "the owner must be able to read its packs (r at the start)");
      }
    }

    @Override
    public String toString() {
      return "POSIX permissions like rw-r----- (owner read required)";
    }
  }
}
