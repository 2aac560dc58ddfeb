package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.store.ListPage;
import io.ankusa.claimcheck.store.StoredObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Lists the objects of a directory store under a key prefix, a page at a time in key order;
 * stateless and thread-safe.
 *
 * <p>Only complete objects are listed: names starting with {@code .} (a put's temporary file, the
 * store's marker) are never objects. A missing directory under the prefix is an empty listing
 * (the store's root exists, so the store answered); any other I/O failure propagates, so the
 * store fails the listing rather than passing on a partial one.
 */
final class DirectoryListing {

  static final int PAGE = 1000;

  private DirectoryListing() {}

  /** One page of the objects under {@code keyPrefix} after {@code continuation} (a key). */
  static ListPage page(Path root, String keyPrefix, String continuation) throws IOException {
    int slash = keyPrefix.lastIndexOf('/');
    Path dir = slash < 0 ? root : root.resolve(keyPrefix.substring(0, slash)).normalize();
    if (!dir.startsWith(root)) {
      throw new IOException("key prefix outside the store root: " + keyPrefix);
    }
    if (!Files.isDirectory(root)) {
      throw new IOException("the store root " + root + " is missing"); // unmounted: not empty
    }
    TreeMap<String, StoredObject> found = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.forEach(p -> {
        if (p.getFileName().toString().startsWith(".")) {
          return;
        }
        String key = root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/");
        if (!key.startsWith(keyPrefix) || (continuation != null && key.compareTo(continuation) <= 0)) {
          return;
        }
        try {
          BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
          if (a.isRegularFile()) {
            found.put(key, new StoredObject(key, a.size(), a.lastModifiedTime().toInstant()));
            if (found.size() > PAGE + 1) {
              found.pollLastEntry(); // keep one past the page: it says whether there is more
            }
          }
        } catch (NoSuchFileException gone) {
          // deleted while walking: no longer an object
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (NoSuchFileException e) {
      return new ListPage(List.of(), null);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    boolean more = found.size() > PAGE;
    if (more) {
      found.pollLastEntry();
    }
    List<StoredObject> objects = new ArrayList<>(found.values());
    return new ListPage(objects, more ? objects.get(objects.size() - 1).key() : null);
  }
}
