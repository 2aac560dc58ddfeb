package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A store on a directory that carries this store's marker file ({@value StoreRoot#MARKER});
 * thread-safe.
 *
 * <p>Invariants: an object's file appears under its name only complete and durable (written to a
 * temporary file that is forced to disk, hard-linked to its name — {@code link(2)} fails atomically
 * when the name exists — and then the directory is forced too), so a reader never sees a partial
 * object, a put-if-absent never overwrites one and a put completes only once durable ({@link #put}
 * alone replaces an object, by an atomic rename over its name). Every operation that could answer
 * "absent" (a miss, a listing, a delete, a put) first looks for the marker: without it (a missing,
 * empty or unmounted root) writes are refused and reads, listings and deletes are {@code
 * UNAVAILABLE} with {@link StoreRoot#why the reason}, never {@code NOT_FOUND} nor an empty listing;
 * a read of a present file needs the marker too until this store has once seen it (a foreign
 * directory's files are not claims). Opening judges nothing, so a volume mounted late is used as
 * soon as it is there. Only a put of a store opened with {@code create} makes the root ({@link
 * StoreRoot#create}), and only while this store has never seen the root marked: once seen, a marker
 * that disappears (the volume unmounted under a running writer) is refused, never re-created on the
 * bare mount point; readers never write, so never create. File work runs on at most {@code threads}
 * daemon threads of this store with at most {@code maxPending} operations waiting; past that an
 * operation fails at once ({@code UNAVAILABLE}, "overloaded"), so a hung filesystem sheds load
 * instead of growing the heap.
 */
final class DirectoryStore implements ClaimStore {

  static final int DEFAULT_THREADS = 4;
  static final int DEFAULT_MAX_PENDING = 1000;

  /** What a streamed write copies at a time. */
  private static final int STREAM_BUFFER = 1 << 20;

  private final Path root;
  private final Path marker;
  private final boolean create;
  private final DirectoryListing listing;

  /** Whether this store has seen its root marked: from then on it never creates the root. */
  private volatile boolean seenMarker;

  private final Set<PosixFilePermission> permissions;
  private final ThreadPoolExecutor io;
  private final int maxPending;

  /**
   * {@code create}: whether a put may create the root ({@link StoreRoot#create}); {@code
   * permissions} are set on every new pack (null where the filesystem has no POSIX permissions).
   */
  DirectoryStore(
      Path root,
      boolean create,
      Set<PosixFilePermission> permissions,
      int threads,
      int maxPending) {
    this.root = root;
    this.marker = root.resolve(StoreRoot.MARKER);
    this.create = create;
    this.listing = new DirectoryListing(root);
    this.seenMarker = StoreRoot.isMarked(root);
    this.permissions = permissions == null ? null : Set.copyOf(permissions);
    this.maxPending = maxPending;
    this.io =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(maxPending),
            r -> {
              Thread t = new Thread(r, "claimcheck-file-store");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    return submit(
        key,
        timeout,
        () -> {
          Path target = resolve(key);
          requireMarkerOrCreate("not writing " + key);
          if (Files.exists(target)) {
            throw new StoreException(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
          }
          Path dir = target.getParent();
          makeDirectoriesBelowRoot(dir);
          Path temp = Files.createTempFile(dir, ".put-", ".tmp");
          try {
            if (permissions != null) {
              Files.setPosixFilePermissions(temp, permissions); // exact, whatever the umask
            }
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
              ByteBuffer buf = ByteBuffer.wrap(bytes);
              while (buf.hasRemaining()) {
                ch.write(buf);
              }
              ch.force(true);
            }
            Files.createLink(target, temp);
          } catch (FileAlreadyExistsException e) {
            throw new StoreException(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
          } finally {
            Files.deleteIfExists(temp);
          }
          StoreRoot.forceDirectory(dir); // the new name is durable only once its directory is
          return null;
        });
  }

  /**
   * Copies {@code source} on the calling thread into a temporary file beside {@code key}'s (a 1 MiB
   * buffer at a time), forces it to disk and hard-links it to its name as {@link #putIfAbsent} does
   * ({@code link(2)} never replaces a name), then forces the directory; the temporary file is
   * deleted whatever happens, so a failed or refused write leaves nothing behind.
   */
  @Override
  public long putStreamIfAbsent(String key, InputStream source, long length, Duration timeout)
      throws IOException {
    Path target = resolve(key);
    requireMarkerOrCreate("not writing " + key);
    if (Files.exists(target)) {
      throw new StoreException(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
    }
    Path dir = target.getParent();
    long written = 0;
    Path temp = null;
    try {
      makeDirectoriesBelowRoot(dir);
      temp = Files.createTempFile(dir, ".put-", ".tmp");
      if (permissions != null) {
        Files.setPosixFilePermissions(temp, permissions);
      }
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        byte[] buf = new byte[STREAM_BUFFER];
        while (length == UNKNOWN_LENGTH || written < length) {
          int want =
              length == UNKNOWN_LENGTH ? buf.length : (int) Math.min(buf.length, length - written);
          int n = source.read(buf, 0, want); // the source's IOException is the caller's
          if (n < 0) {
            if (length != UNKNOWN_LENGTH) {
              throw new java.io.EOFException(
                  "the source ended after " + written + " of " + length + " bytes");
            }
            break;
          }
          write(ch, ByteBuffer.wrap(buf, 0, n), key);
          written += n;
        }
        force(ch, key);
      }
      try {
        Files.createLink(target, temp);
      } catch (FileAlreadyExistsException e) {
        throw new StoreException(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
      }
      StoreRoot.forceDirectory(dir);
      return written;
    } catch (AccessDeniedException e) {
      throw new StoreException(Kind.FORBIDDEN, describe() + " denied " + key, null, e);
    } finally {
      if (temp != null) {
        Files.deleteIfExists(temp);
      }
    }
  }

  private void write(FileChannel ch, ByteBuffer b, String key) {
    try {
      while (b.hasRemaining()) {
        ch.write(b);
      }
    } catch (IOException e) {
      throw new StoreException(
          Kind.UNAVAILABLE, describe() + " failed on " + key + ": " + e, null, e);
    }
  }

  private void force(FileChannel ch, String key) {
    try {
      ch.force(true);
    } catch (IOException e) {
      throw new StoreException(
          Kind.UNAVAILABLE, describe() + " failed on " + key + ": " + e, null, e);
    }
  }

  /**
   * Writes a temporary file forced to disk, renames it over {@code key} ({@code rename(2)} replaces
   * the name atomically: a reader opens the old file or the new one, whole, and one that has the
   * old one open reads it to its end), then forces the directory; the new file's modification time
   * is that of this write.
   */
  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    return submit(
        key,
        timeout,
        () -> {
          Path target = resolve(key);
          requireMarkerOrCreate("not writing " + key); // a write, like putIfAbsent
          Path dir = target.getParent();
          makeDirectoriesBelowRoot(dir);
          Path temp = Files.createTempFile(dir, ".put-", ".tmp");
          try {
            if (permissions != null) {
              Files.setPosixFilePermissions(temp, permissions);
            }
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
              ByteBuffer buf = ByteBuffer.wrap(bytes);
              while (buf.hasRemaining()) {
                ch.write(buf);
              }
              ch.force(true);
            }
            Files.move(
                temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          } finally {
            Files.deleteIfExists(temp);
          }
          StoreRoot.forceDirectory(dir);
          return null;
        });
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "offset and length must not be negative: " + offset + ", " + length);
    }
    return submit(
        key,
        timeout,
        () -> {
          Path file = resolve(key);
          if (!seenMarker) {
            requireMarker("not reading " + key); // a foreign directory's files are not claims
          }
          try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            int n = (int) Math.max(0, Math.min(length, size - offset));
            ByteBuffer buf = ByteBuffer.allocate(n);
            while (buf.hasRemaining() && ch.read(buf, offset + buf.position()) >= 0) {
              // read until full or end of file
            }
            return buf.position() == n
                ? buf.array()
                : java.util.Arrays.copyOf(buf.array(), buf.position());
          } catch (NoSuchFileException e) {
            requireMarker("cannot tell whether it holds " + key);
            throw new StoreException(Kind.NOT_FOUND, describe() + " has no " + key);
          }
        });
  }

  /** The file's size and modification time, as the listing reports them. */
  @Override
  public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
    return submit(
        key,
        timeout,
        () -> {
          Path file = resolve(key);
          requireMarker("cannot tell whether it holds " + key);
          try {
            java.nio.file.attribute.BasicFileAttributes a =
                Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
            if (a.isRegularFile()) {
              return new StoredObject(key, a.size(), a.lastModifiedTime().toInstant());
            }
          } catch (NoSuchFileException e) {
            // absent
          }
          throw new StoreException(Kind.NOT_FOUND, describe() + " has no " + key);
        });
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    return submit(
        key,
        timeout,
        () -> {
          Path file = resolve(key);
          requireMarker("not deleting " + key);
          Files.deleteIfExists(file);
          return null;
        });
  }

  /** Fails with UNAVAILABLE (and why) unless the root carries its marker now. */
  private void requireMarker(String consequence) {
    if (Files.isRegularFile(marker)) {
      seenMarker = true;
      return;
    }
    throw new StoreException(
        Kind.UNAVAILABLE, describe() + ": " + StoreRoot.why(root) + "; " + consequence);
  }

  /**
   * {@link #requireMarker}, but a store opened with {@code create} that has never seen its root
   * marked creates it first; a root that cannot be created fails UNAVAILABLE with the reason.
   */
  private void requireMarkerOrCreate(String consequence) {
    if (create && !seenMarker && !Files.isRegularFile(marker)) {
      synchronized (this) {
        try {
          StoreRoot.create(root);
        } catch (IOException e) {
          throw new StoreException(
              Kind.UNAVAILABLE,
              describe() + " could not be created (" + e.getMessage() + "); " + consequence,
              null,
              e);
        }
      }
    }
    requireMarker(consequence);
  }

  /** Creates the directories from just below the root down to {@code dir}; never the root. */
  private void makeDirectoriesBelowRoot(Path dir) throws IOException {
    Path at = root;
    for (Path part : root.relativize(dir)) {
      Path parent = at;
      at = at.resolve(part);
      try {
        Files.createDirectory(at); // fails when the root (or any parent) has gone
        StoreRoot.forceDirectory(parent);
      } catch (FileAlreadyExistsException exists) {
        // another put made it, or it was there
      }
    }
  }

  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    return submit(
        "?list " + keyPrefix,
        timeout,
        () -> {
          requireMarker("nothing is listed"); // an unmounted volume must never look empty
          return listing.page(keyPrefix, continuation);
        });
  }

  private Path resolve(String key) {
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root) || p.equals(root) || p.equals(marker)) {
      throw new StoreException(
          Kind.FORBIDDEN, describe() + " refuses key outside its root: " + key);
    }
    return p;
  }

  private <T> CompletableFuture<T> submit(String key, Duration timeout, IoWork<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      io.execute(
          () -> {
            if (result.isDone()) {
              return; // timed out while waiting: do not touch the disk any more
            }
            try {
              result.complete(work.run());
            } catch (AccessDeniedException e) {
              result.completeExceptionally(
                  new StoreException(Kind.FORBIDDEN, describe() + " denied " + key, null, e));
            } catch (StoreException e) {
              result.completeExceptionally(e);
            } catch (IOException | RuntimeException e) {
              result.completeExceptionally(
                  new StoreException(
                      Kind.UNAVAILABLE, describe() + " failed on " + key + ": " + e, null, e));
            }
          });
    } catch (RejectedExecutionException rejected) {
      result.completeExceptionally(
          new StoreException(
              Kind.UNAVAILABLE,
              io.isShutdown()
                  ? describe() + " is closed"
                  : describe()
                      + " is overloaded: "
                      + maxPending
                      + " operations already wait for the "
                      + "filesystem; shedding "
                      + key,
              null,
              rejected));
      return result;
    }
    return result
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
        .exceptionallyCompose(
            t ->
                CompletableFuture.failedFuture(
                    t instanceof TimeoutException
                        ? new StoreException(
                            Kind.UNAVAILABLE,
                            describe() + " timed out after " + timeout.toMillis() + " ms on " + key,
                            null,
                            t)
                        : t));
  }

  /** The listing of this store (tests count its directory reads). */
  DirectoryListing listing() {
    return listing;
  }

  /** How many operations wait for a thread (tests). */
  int pending() {
    return io.getQueue().size();
  }

  @Override
  public String describe() {
    return root.toUri().toString();
  }

  @Override
  public void close() {
    io.shutdown();
  }

  @Override
  public String toString() {
    return "DirectoryStore[" + describe() + (create ? ", create" : "") + "]";
  }

  /** File work that may throw. */
  @FunctionalInterface
  private interface IoWork<T> {
    T run() throws IOException;
  }
}
