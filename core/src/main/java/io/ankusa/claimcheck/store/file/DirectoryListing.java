package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lists the objects of one directory store under a key prefix, a page at a time in key order, in
 * one walk of the tree per listing; thread-safe.
 *
 * <p>The walk visits each directory's entries sorted as keys sort (a directory's name counts with
 * its trailing {@code /}), so it yields keys in order without collecting the tree first. After a
 * page, the walk's position is kept under the page's continuation token (its last key): the next
 * page resumes it, reading no directory twice. A token whose walk is not kept (more than {@value
 * #MAX_CURSORS} listings at once, a token from before a restart, or two callers of one token) still
 * works: a new walk starts after that key, skipping every directory that holds only keys at or
 * before it.
 *
 * <p>Only complete objects are listed: names starting with {@code .} (a put's temporary file, the
 * store's marker) are never objects. A missing directory under the prefix is an empty listing (the
 * caller checked the root's marker, so the store answered); any other I/O failure propagates, so
 * the store fails the listing rather than passing on a partial one.
 */
final class DirectoryListing {

  static final int PAGE = 1000;

  /** How many paused walks are kept; the least recently paused one is dropped past that. */
  static final int MAX_CURSORS = 4;

  private final Path root;
  private final AtomicLong directoriesRead = new AtomicLong();
  private final Map<String, DirectoryWalk> paused =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, DirectoryWalk> eldest) {
          return size() > MAX_CURSORS;
        }
      };

  DirectoryListing(Path root) {
    this.root = root;
  }

  /** One page of the objects under {@code keyPrefix} after {@code continuation} (a key). */
  ListPage page(String keyPrefix, String continuation) throws IOException {
    int slash = keyPrefix.lastIndexOf('/');
    Path dir = slash < 0 ? root : root.resolve(keyPrefix.substring(0, slash)).normalize();
    if (!dir.startsWith(root)) {
      throw new IOException("key prefix outside the store root: " + keyPrefix);
    }
    if (!Files.isDirectory(root)) {
      throw new IOException("the store root " + root + " is missing"); // unmounted: not empty
    }
    DirectoryWalk walk = continuation == null ? null : take(keyPrefix, continuation);
    if (walk == null) {
      walk =
          new DirectoryWalk(root, dir, keyPrefix, continuation, directoriesRead::incrementAndGet);
    }
    List<StoredObject> objects = new ArrayList<>();
    StoredObject next;
    while (objects.size() < PAGE && (next = walk.next()) != null) {
      objects.add(next);
    }
    if (objects.size() < PAGE || !walk.hasNext()) {
      return new ListPage(objects, null);
    }
    String token = objects.get(objects.size() - 1).key();
    synchronized (paused) {
      paused.put(keyPrefix + '\0' + token, walk);
    }
    return new ListPage(objects, token);
  }

  private DirectoryWalk take(String keyPrefix, String continuation) {
    synchronized (paused) {
      return paused.remove(keyPrefix + '\0' + continuation);
    }
  }

  /** How many directories the listings have read so far (tests). */
  long directoriesRead() {
    return directoriesRead.get();
  }
}
