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

  /** Returns {@link #create(Path, Set)} with {@link #DEFAULT_PERMISSIONS}. */
  public static ClaimStore create(Path root) {
    return create(root, PosixFilePermissions.fromString(DEFAULT_PERMISSIONS));
  }

  /**
   * Returns a store keeping each object as a file under {@code root}, with an atomic
   * put-if-absent (a new object is written to a temporary file, forced to disk, hard-linked to its
   * name — which fails if the name exists — and its directory forced) and each new file given
   * exactly {@code permissions} (where the filesystem has POSIX permissions).
   *
   * <p>The root must carry the store's marker file {@code .claimcheck-store}. A missing root
   * (whose parent exists) or an empty directory is created and marked now; any other root (a
   * non-empty directory without the marker, a file, a missing parent) gives a store that answers
   * every operation {@code UNAVAILABLE} with the reason — this never throws for the state of the
   * filesystem, so a volume mounted late is reported, not fatal. The root is judged once, here: a
   * store that was unusable at open stays so until it is created again (a process restart).
   *
   * @throws IllegalArgumentException when {@code permissions} lacks owner read
   */
  public static ClaimStore create(Path root, Set<PosixFilePermission> permissions) {
    return create(root, permissions, DirectoryStore.DEFAULT_THREADS,
        DirectoryStore.DEFAULT_MAX_PENDING);
  }

  static DirectoryStore create(
      Path root, Set<PosixFilePermission> permissions, int threads, int maxPending) {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(permissions, "permissions");
    if (!permissions.contains(PosixFilePermission.OWNER_READ)) {
      throw new IllegalArgumentException(
          "pack permissions must let the owner read: " + PosixFilePermissions.toString(permissions));
    }
    Path absolute = root.toAbsolutePath().normalize();
    boolean posix = absolute.getFileSystem().supportedFileAttributeViews().contains("posix");
    return new DirectoryStore(absolute, StoreRoot.prepare(absolute), posix ? permissions : null,
        threads, maxPending);
  }
}
