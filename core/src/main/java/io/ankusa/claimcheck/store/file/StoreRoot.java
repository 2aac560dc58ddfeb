package io.ankusa.claimcheck.store.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides at open whether a directory can be a store's root, initializing a missing or empty one
 * with the store's marker file; stateless and thread-safe.
 *
 * <p>A root is usable when it carries {@value #MARKER} (a regular file), or when it is missing
 * (its parent existing) or an empty directory: then it is created and marked. A directory that is
 * not empty and has no marker belongs to someone else (or is the wrong mount) and is left as it
 * is.
 */
final class StoreRoot {

  /** The marker file a store writes into its root (the lead's decision 6). */
  static final String MARKER = ".claimcheck-store";

  private static final Logger LOG = LoggerFactory.getLogger(StoreRoot.class);
  private static final byte[] MARKER_TEXT =
      ("Ankusa Claim Check store directory. Do not delete: without this file the store refuses to"
              + " write and reports every read as unavailable.\n")
          .getBytes(StandardCharsets.UTF_8);

  private StoreRoot() {}

  /**
   * Prepares {@code root} (absolute, normalized) and returns null when it is usable, or why it is
   * not; never throws for the state of the filesystem.
   */
  static String prepare(Path root) {
    try {
      if (Files.isRegularFile(root.resolve(MARKER))) {
        return null;
      }
      if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
        Path parent = root.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
          return "neither " + root + " nor its parent directory exists; not creating them";
        }
        Files.createDirectory(root);
        forceDirectory(parent);
        mark(root);
        LOG.info("Created claim store directory {} and its marker {}", root, MARKER);
        return null;
      }
      if (!Files.isDirectory(root)) {
        return root + " is not a directory";
      }
      if (!isEmpty(root)) {
        return root + " is not empty and has no " + MARKER + " marker: not a claim store this "
            + "library created (or another volume is mounted there); not touching it";
      }
      mark(root);
      LOG.info("Initialized empty directory {} as a claim store (wrote its marker {})", root,
          MARKER);
      return null;
    } catch (IOException | RuntimeException e) {
      return "cannot prepare " + root + ": " + e;
    }
  }

  /** Forces {@code dir}'s entries (names linked into it) to disk. */
  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      if (!isWindows()) {
        throw e; // a directory cannot be opened on Windows; elsewhere this is a real failure
      }
    }
  }

  private static void mark(Path root) throws IOException {
    Path temp = Files.createTempFile(root, ".marker-", ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(MARKER_TEXT);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      Files.createLink(root.resolve(MARKER), temp);
    } catch (java.nio.file.FileAlreadyExistsException raced) {
      // another process marked it at the same time: the same marker
    } finally {
      Files.deleteIfExists(temp);
    }
    forceDirectory(root);
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      return !entries.iterator().hasNext();
    }
  }

  private static boolean isWindows() {
    return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win");
  }
}
