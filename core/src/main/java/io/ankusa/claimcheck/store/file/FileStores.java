package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.store.ClaimStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Creates claim stores on a local (or mounted) directory; thread-safe (stateless). */
public final class FileStores {

  private FileStores() {}

  /**
   * Returns a store keeping each object as a file under {@code root} (created if missing), with
   * an atomic put-if-absent: a new object is written to a temporary file, forced to disk, then
   * hard-linked to its name, which fails if the name exists.
   */
  public static ClaimStore create(Path root) {
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create store directory " + root, e);
    }
    return new DirectoryStore(root.toAbsolutePath().normalize());
  }
}
