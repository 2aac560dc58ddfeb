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
 * Judges whether a directory is a store's root and creates one only when asked; stateless and
 * thread-safe.
 *
 * <p>A root is a store when it carries {@value #MARKER} (a regular file). Nothing else is: a
 * missing root or an empty directory is exactly what an unmounted volume's mount point looks like,
 * so it is never taken for an empty store. {@link #create} (a writer configured with {@code
 * file.create=true}, or {@code claimcheck store init}) makes a missing root whose parent exists, or
 * marks an empty directory; it never touches a non-empty directory without the marker (someone
 * else's data, or the wrong volume), a file, or a root whose parent is missing.
 */
final class StoreRoot {

  /** The marker file a store writes into its root (the lead's decision 6). */
  static final String MARKER = ".claimcheck-store";

  /** What to do about a root without its marker: the operator's two ways to create a store. */
  static final String HOW_TO_CREATE =
      "is the volume mounted? If this is a new store, create it "
          + "with claimcheck.file.create=true (on a writer) or `claimcheck store init`";

  private static final Logger LOG = LoggerFactory.getLogger(StoreRoot.class);
  private static final byte[] MARKER_TEXT =
      ("Ankusa Claim Check store directory. Do not delete: without this file the store refuses to"
              + " write and reports every read as unavailable.\n")
          .getBytes(StandardCharsets.UTF_8);

  private StoreRoot() {}

  /** Whether {@code root} carries its marker now. */
  static boolean isMarked(Path root) {
    return Files.isRegularFile(root.resolve(MARKER));
  }

  /**
   * Why {@code root} (absolute, normalized) is not a store now, for messages: it has no marker and
   * is missing, empty, foreign or not a directory; reads nothing but its state.
   */
  static String why(Path root) {
    try {
      if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
        Path parent = root.getParent();
        return "the store root "
            + root
            + " does not exist"
            + (parent != null && Files.isDirectory(parent) ? "" : ", nor its parent directory")
            + " and has no marker "
            + MARKER
            + ": "
            + HOW_TO_CREATE;
      }
      if (!Files.isDirectory(root)) {
        return "the store root " + root + " is not a directory";
      }
      if (!isEmpty(root)) {
        return "the store root "
            + root
            + " is not empty and has no "
            + MARKER
            + " marker: not a"
            + " claim store this library created (or another volume is mounted there); not"
            + " touching it";
      }
      return "the store root "
          + root
          + " is an empty directory without the marker "
          + MARKER
          + ": "
          + HOW_TO_CREATE;
    } catch (IOException | RuntimeException e) {
      return "cannot read the store root " + root + ": " + e;
    }
  }

  /**
   * Makes {@code root} (absolute, normalized) a store unless it is one: creates it when missing and
   * its parent exists, marks it when it is an empty directory; returns true when it did, false when
   * the root already carried its marker.
   *
   * @throws IOException when the root cannot be a store (a non-empty directory without the marker,
   *     a file, a missing parent), with the reason, or on an I/O failure
   */
  static boolean create(Path root) throws IOException {
    if (isMarked(root)) {
      return false;
    }
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      Path parent = root.getParent();
      if (parent == null || !Files.isDirectory(parent)) {
        throw new IOException(
            "neither "
                + root
                + " nor its parent directory exists; not "
                + "creating them (is the volume mounted?)");
      }
      try {
        Files.createDirectory(root);
        forceDirectory(parent);
      } catch (java.nio.file.FileAlreadyExistsException raced) {
        // created at the same time by another writer: judged below like any directory
      }
    }
    if (!Files.isDirectory(root)) {
      throw new IOException(root + " is not a directory");
    }
    if (isMarked(root)) {
      return false;
    }
    if (!isEmpty(root)) {
      throw new IOException(why(root));
    }
    mark(root);
    LOG.info("Created claim store {} (wrote its marker {})", root, MARKER);
    return true;
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

  /** Whether {@code dir} holds nothing but another writer's marker being written. */
  private static boolean isEmpty(Path dir) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        if (!(name.startsWith(".marker-") && name.endsWith(".tmp"))) {
          return false;
        }
      }
      return true;
    }
  }

  private static boolean isWindows() {
    return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win");
  }
}
