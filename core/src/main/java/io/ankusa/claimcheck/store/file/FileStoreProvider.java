package io.ankusa.claimcheck.store.file;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Serves {@code file:///path} stores (a local or mounted directory) and defines their settings
 * {@code file.permissions} and {@code file.create}; stateless and thread-safe.
 */
public final class FileStoreProvider implements ClaimStoreProvider {

  static final String PERMISSIONS = "file.permissions";
  static final String CREATE = "file.create";

  private static final ConfigDef SETTINGS =
      new ConfigDef()
          .define(
              PERMISSIONS,
              Type.STRING,
              FileStores.DEFAULT_PERMISSIONS,
              new PermissionsValidator(),
              LOW,
              "The POSIX permissions of a new pack in a file:// store (like rw-r-----: readable by "
                  + "the group, so readers may run as another user of it); the owner must be able to "
                  + "read.")
          .define(
              CREATE,
              Type.BOOLEAN,
              false,
              LOW,
              "Whether a writer creates a missing file:// store "
                  + "root (whose parent exists) or marks an empty directory as one, at its first write. "
                  + "Off, a root without the marker file .claimcheck-store (an unmounted volume's empty "
                  + "mount point) is unavailable and refuses writes; create a store once with this on or "
                  + "with `claimcheck store init`. Readers never create a store, whatever this says.");

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
    return FileStores.create(root(uri), config.getBoolean(CREATE), permissions(config));
  }

  /**
   * Makes the directory of {@code uri} ({@code file:///absolute/path}) a file store now, as {@code
   * claimcheck store init} does: creates it when missing (its parent must exist) or marks it when
   * empty; returns true when it did, false when it already was a store.
   *
   * @throws IllegalArgumentException when {@code uri} is not a file store's
   * @throws IllegalStateException when the directory cannot be a store (not empty without the
   *     store's marker, a file, a missing parent, an I/O failure), with the reason
   */
  public static boolean initialize(URI uri) {
    Path root = root(uri).toAbsolutePath().normalize();
    try {
      return StoreRoot.create(root);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The directory of {@code uri}, which must be {@code file:///absolute/path}. */
  static Path root(URI uri) {
    if (uri.isOpaque()
        || uri.getPath() == null
        || uri.getPath().isEmpty()
        || uri.getAuthority() != null
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
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
        throw new ConfigException(
            name, value, "not POSIX permissions like rw-r----- (9 of r, w, x, -)");
      }
      if (!perms.contains(PosixFilePermission.OWNER_READ)) {
        throw new ConfigException(
            name, value, "the owner must be able to read its packs (r at the start)");
      }
    }

    @Override
    public String toString() {
      return "POSIX permissions like rw-r----- (owner read required)";
    }
  }
}
