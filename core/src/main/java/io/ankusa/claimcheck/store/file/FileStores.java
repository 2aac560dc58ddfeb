package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.store.ClaimStore;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Set;

/** Creates claim stores on a local (or mounted) directory; thread-safe (stateless). */
final class FileStores {

  /** The permissions of a new pack unless configured: owner read-write, group read. */
  public static final String DEFAULT_PERMISSIONS = "rw-r-----";

  private FileStores() {}

  /** Returns {@link #create(Path, boolean, Set)} of an existing store, default permissions. */
  public static ClaimStore create(Path root) {
    return create(root, false, PosixFilePermissions.fromString(DEFAULT_PERMISSIONS));
  }

  /**
   * Returns a store keeping each object as a file under {@code root}, with an atomic put-if-absent
   * (a new object is written to a temporary file, forced to disk, hard-linked to its name — which
   * fails if the name exists — and its directory forced) and each new file given exactly {@code
   * permissions} (where the filesystem has POSIX permissions).
   *
   * <p>The root must carry the store's marker file {@code .claimcheck-store}; opening touches
   * nothing and never throws for the state of the filesystem. Without the marker (a missing or
   * empty directory: an unmounted volume looks just so) every operation answers {@code UNAVAILABLE}
   * with the reason, so a volume mounted late is used once it is there. With {@code create}, the
   * first put that finds no marker creates the root (a missing one whose parent exists) or marks it
   * (an empty directory), unless this store saw the marker before.
   *
   * @throws IllegalArgumentException when {@code permissions} lacks owner read
   */
  public static ClaimStore create(Path root, boolean create, Set<PosixFilePermission> permissions) {
    return create(
        root,
        create,
        permissions,
        DirectoryStore.DEFAULT_THREADS,
        DirectoryStore.DEFAULT_MAX_PENDING);
  }

  static DirectoryStore create(
      Path root,
      boolean create,
      Set<PosixFilePermission> permissions,
      int threads,
      int maxPending) {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(permissions, "permissions");
    if (!permissions.contains(PosixFilePermission.OWNER_READ)) {
      throw new IllegalArgumentException(
          "pack permissions must let the owner read: "
              + PosixFilePermissions.toString(permissions));
    }
    Path absolute = root.toAbsolutePath().normalize();
    boolean posix = absolute.getFileSystem().supportedFileAttributeViews().contains("posix");
    return new DirectoryStore(absolute, create, posix ? permissions : null, threads, maxPending);
  }
}
