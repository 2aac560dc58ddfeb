package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;

/**
 * One walk over a directory store's files in key order, from a start directory, yielding the
 * objects whose keys start with a prefix and sort after a key; not thread-safe (one caller at a
 * time: {@link DirectoryListing} hands a paused walk to one page).
 *
 * <p>Each directory is read once, when the walk reaches it, and its entries are sorted as keys
 * sort: a subdirectory by its name with the trailing {@code /}, so every key below it sorts where
 * that name does. A subdirectory whose keys all sort at or before the resume key, or none of which
 * can start with the prefix, is never read. Names starting with {@code .} are skipped; an entry
 * deleted while walking is no longer an object.
 */
final class DirectoryWalk {

  /** A directory's entry: its name as keys sort it (a directory's with its {@code /}). */
  private record Entry(String sortName, boolean directory) {}

  /** A directory being walked, its entries sorted, and its keys' prefix ("" at the root). */
  private static final class Level {
    final Path dir;
    final String prefix;
    final List<Entry> entries;
    int next;

    Level(Path dir, String prefix, List<Entry> entries) {
      this.dir = dir;
      this.prefix = prefix;
      this.entries = entries;
    }
  }

  private final Deque<Level> stack = new ArrayDeque<>();
  private final String keyPrefix;
  private final String after;
  private final Runnable onRead;
  private StoredObject peeked;

  /**
   * A walk of {@code start} (at or below {@code root}) for the keys starting with {@code keyPrefix}
   * after {@code after} (null: from the first); {@code onRead} runs once per directory read.
   */
  DirectoryWalk(Path root, Path start, String keyPrefix, String after, Runnable onRead)
      throws IOException {
    this.keyPrefix = keyPrefix;
    this.after = after;
    this.onRead = onRead;
    String prefix =
        start.equals(root)
            ? ""
            : root.relativize(start).toString().replace(start.getFileSystem().getSeparator(), "/")
                + "/";
    push(start, prefix);
  }

  /** Whether another object follows. */
  boolean hasNext() throws IOException {
    if (peeked == null) {
      peeked = advance();
    }
    return peeked != null;
  }

  /** The next object in key order, or null when the walk is over. */
  StoredObject next() throws IOException {
    if (peeked != null) {
      StoredObject o = peeked;
      peeked = null;
      return o;
    }
    return advance();
  }

  private StoredObject advance() throws IOException {
    while (!stack.isEmpty()) {
      Level level = stack.peek();
      if (level.next == level.entries.size()) {
        stack.pop();
        continue;
      }
      Entry e = level.entries.get(level.next++);
      String key = level.prefix + e.sortName();
      if (e.directory()) {
        boolean mayMatch = key.startsWith(keyPrefix) || keyPrefix.startsWith(key);
        boolean allBefore = after != null && key.compareTo(after) < 0 && !after.startsWith(key);
        if (mayMatch && !allBefore) {
          String name = e.sortName().substring(0, e.sortName().length() - 1);
          push(level.dir.resolve(name), key);
        }
        continue;
      }
      if (!key.startsWith(keyPrefix) || (after != null && key.compareTo(after) <= 0)) {
        continue;
      }
      BasicFileAttributes a;
      try {
        a = Files.readAttributes(level.dir.resolve(e.sortName()), BasicFileAttributes.class);
      } catch (NoSuchFileException gone) {
        continue; // deleted while walking: no longer an object
      }
      if (a.isRegularFile()) {
        return new StoredObject(key, a.size(), a.lastModifiedTime().toInstant());
      }
    }
    return null;
  }

  /** Reads {@code dir} (its keys start with {@code prefix}) and makes it the walk's next level. */
  private void push(Path dir, String prefix) throws IOException {
    onRead.run();
    List<Entry> entries = new ArrayList<>();
    try (DirectoryStream<Path> in = Files.newDirectoryStream(dir)) {
      for (Path p : in) {
        String name = p.getFileName().toString();
        if (name.startsWith(".")) {
          continue; // a put's temporary file, the marker: never objects
        }
        boolean directory;
        try {
          directory =
              Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                  .isDirectory();
        } catch (NoSuchFileException gone) {
          continue;
        }
        entries.add(new Entry(directory ? name + "/" : name, directory));
      }
    } catch (NoSuchFileException | NotDirectoryException gone) {
      return; // nothing under it (any more)
    } catch (DirectoryIteratorException e) {
      throw e.getCause();
    }
    entries.sort(Comparator.comparing(Entry::sortName));
    stack.push(new Level(dir, prefix, entries));
  }
}
