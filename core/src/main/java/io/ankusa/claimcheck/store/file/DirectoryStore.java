package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ListPage;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A store on a directory; thread-safe.
 *
 * <p>Invariants: an object's file appears under its name only complete and forced to disk (it is
 * hard-linked from a finished temporary file, and {@code link(2)} fails atomically when the name
 * exists), so a reader never sees a partial object and no object is ever overwritten; file work
 * runs on this store's own daemon threads, never the caller's.
 */
final class DirectoryStore implements ClaimStore {

  private final Path root;
  private final ExecutorService io;

  DirectoryStore(Path root) {
    this.root = root;
    this.io = Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "claimcheck-file-store");
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    return submit(key, timeout, () -> {
      Path target = resolve(key);
      if (Files.exists(target)) {
        throw new StoreException(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
      }
      Files.createDirectories(target.getParent());
      Path temp = Files.createTempFile(target.getParent(), ".put-", ".tmp");
      try {
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
      return null;
    });
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    return submit(key, timeout, () -> {
      try (FileChannel ch = FileChannel.open(resolve(key), StandardOpenOption.READ)) {
        long size = ch.size();
        int n = (int) Math.max(0, Math.min(length, size - offset));
        ByteBuffer buf = ByteBuffer.allocate(n);
        while (buf.hasRemaining() && ch.read(buf, offset + buf.position()) >= 0) {
          // read until full or end of file
        }
        return buf.position() == n ? buf.array() : java.util.Arrays.copyOf(buf.array(), buf.position());
      }
    });
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    return submit(key, timeout, () -> {
      Files.deleteIfExists(resolve(key));
      return null;
    });
  }

  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    return submit("?list " + keyPrefix, timeout,
        () -> DirectoryListing.page(root, keyPrefix, continuation));
  }

  private Path resolve(String key) {
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root) || p.equals(root)) {
      throw new StoreException(Kind.FORBIDDEN, describe() + " refuses key outside its root: " + key);
    }
    return p;
  }

  private <T> CompletableFuture<T> submit(String key, Duration timeout, IoWork<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      io.execute(() -> {
        try {
          result.complete(work.run());
        } catch (NoSuchFileException e) {
          result.completeExceptionally(new StoreException(Kind.NOT_FOUND, describe() + " has no " + key));
        } catch (AccessDeniedException e) {
          result.completeExceptionally(
              new StoreException(Kind.FORBIDDEN, describe() + " denied " + key, null, e));
        } catch (StoreException e) {
          result.completeExceptionally(e);
        } catch (IOException | RuntimeException e) {
          result.completeExceptionally(
              new StoreException(Kind.UNAVAILABLE, describe() + " failed on " + key + ": " + e, null, e));
        }
      });
    } catch (RuntimeException rejected) {
      result.completeExceptionally(
          new StoreException(Kind.UNAVAILABLE, describe() + " is closed", null, rejected));
    }
    return result
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
        .exceptionallyCompose(t -> CompletableFuture.failedFuture(
            t instanceof TimeoutException
                ? new StoreException(Kind.UNAVAILABLE,
                    describe() + " timed out after " + timeout.toMillis() + " ms on " + key, null, t)
                : t));
  }

  @Override
  public String describe() {
    return root.toUri().toString();
  }

  @Override
  public void close() {
    io.shutdown();
  }

  /** File work that may throw. */
  @FunctionalInterface
  private interface IoWork<T> {
    T run() throws IOException;
  }
}
