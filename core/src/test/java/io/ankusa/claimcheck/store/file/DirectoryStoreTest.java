package io.ankusa.claimcheck.store.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreContract;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store contract on a real directory (unreachable = its volume unmounted: the root moved away),
 * and the file store's own hostile cases: missing, foreign and vanishing roots, permissions, and
 * its bounded queue.
 */
class DirectoryStoreTest extends ClaimStoreContract {

  @TempDir Path tmp;
  private Path root;
  private ClaimStore store;

  @BeforeEach
  void open() throws IOException {
    root = tmp.resolve("claims");
    StoreRoot.create(root); // a store that exists, as `claimcheck store init` leaves it
    store =
        FileStores.create(
            root, true, PosixFilePermissions.fromString(FileStores.DEFAULT_PERMISSIONS));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Override
  protected ClaimStore store() {
    return store;
  }

  @Override
  protected boolean backdate(String key, java.time.Instant at) throws IOException {
    Files.setLastModifiedTime(root.resolve(key), java.nio.file.attribute.FileTime.from(at));
    return true;
  }

  @Override
  protected void makeUnavailable() throws IOException {
    Files.move(root, tmp.resolve("unmounted"));
    Files.createDirectory(root); // the bare mount point left behind
  }

  @Override
  protected void restore() throws IOException {
    Files.delete(root);
    Files.move(tmp.resolve("unmounted"), root);
  }

  @Test
  void aWriterWithCreateMakesAMissingRootAtItsFirstWriteNotAtOpen() {
    Path fresh = tmp.resolve("fresh");
    try (ClaimStore s =
        FileStores.create(fresh, true, PosixFilePermissions.fromString("rw-r-----"))) {
      assertThat(fresh).doesNotExist();
      s.putIfAbsent("k", bytes(4), T).join();
      assertThat(fresh.resolve(StoreRoot.MARKER)).isRegularFile();
      assertThat(s.getRange("k", 0, 4, T).join()).isEqualTo(bytes(4));
    }
  }

  @Test
  void aWriterWithCreateMarksAnEmptyDirectory() throws IOException {
    Path empty = Files.createDirectory(tmp.resolve("empty"));
    try (ClaimStore s =
        FileStores.create(empty, true, PosixFilePermissions.fromString("rw-r-----"))) {
      assertThat(empty.resolve(StoreRoot.MARKER)).doesNotExist();
      s.putIfAbsent("k", bytes(4), T).join();
      assertThat(empty.resolve(StoreRoot.MARKER)).isRegularFile();
      assertThat(s.getRange("k", 0, 4, T).join()).isEqualTo(bytes(4));
    }
  }

  @Test
  void aMissingParentIsNotCreatedAndTheStoreIsUnavailable() {
    Path deep = tmp.resolve("no/such/parent/claims");
    try (ClaimStore s =
        FileStores.create(deep, true, PosixFilePermissions.fromString("rw-r-----"))) {
      StoreException e = failure(s.getRange("k", 0, 4, T));
      assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(e).hasMessageContaining("parent");
      assertThat(failure(s.putIfAbsent("k", bytes(4), T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(tmp.resolve("no")).doesNotExist();
    }
  }

  @Test
  void aForeignNonEmptyDirectoryIsUnusableAndUntouched() throws IOException {
    Path foreign = Files.createDirectory(tmp.resolve("home"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    try (ClaimStore s =
        FileStores.create(foreign, true, PosixFilePermissions.fromString("rw-r-----"))) {
      StoreException read = failure(s.getRange("notes.txt", 0, 4, T));
      assertThat(read.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(read).hasMessageContaining("not empty").hasMessageContaining(StoreRoot.MARKER);
      assertThat(failure(s.getRange("absent", 0, 4, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(s.putIfAbsent("k", bytes(4), T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(s.delete("notes.txt", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
    try (Stream<Path> entries = Files.list(foreign)) {
      assertThat(entries).containsExactly(foreign.resolve("notes.txt"));
    }
  }

  @Test
  void aRootDeletedUnderARunningWriterWithCreateIsUnavailableAndNeverRecreated()
      throws IOException {
    store.putIfAbsent("t/present", bytes(8), T).join();
    deleteTree(root);
    assertThat(failure(store.getRange("t/present", 0, 8, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.getRange("t/absent", 0, 8, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    StoreException put = failure(store.putIfAbsent("t/new", bytes(8), T));
    assertThat(put.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(put).hasMessageContaining(StoreRoot.MARKER);
    assertThat(failure(store.delete("t/present", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(root).doesNotExist();
  }

  @Test
  void aRemovedMarkerStopsWritesAndMissesButNotTheMarkerItself() throws IOException {
    store.putIfAbsent("present", bytes(8), T).join();
    Files.delete(root.resolve(StoreRoot.MARKER));
    assertThat(failure(store.getRange("absent", 0, 8, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.putIfAbsent("new", bytes(8), T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(root.resolve("new")).doesNotExist();
    assertThat(root.resolve(StoreRoot.MARKER)).doesNotExist();
    // Bytes that are there are still the right bytes.
    assertThat(store.getRange("present", 0, 8, T).join()).isEqualTo(bytes(8));
  }

  @Test
  void theMarkerIsNotAKey() {
    assertThat(failure(store.putIfAbsent(StoreRoot.MARKER, bytes(1), T)).kind())
        .isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.delete(StoreRoot.MARKER, T)).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(failure(store.getRange("../outside", 0, 1, T)).kind()).isEqualTo(Kind.FORBIDDEN);
    assertThat(root.resolve(StoreRoot.MARKER)).isRegularFile();
  }

  @Test
  void packsAreReadableByTheGroupByDefaultAndAsConfigured() throws IOException {
    assumeTrue(root.getFileSystem().supportedFileAttributeViews().contains("posix"));
    store.putIfAbsent("t/a", bytes(3), T).join();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("t/a"))))
        .isEqualTo("rw-r-----");
    Path other = tmp.resolve("shared");
    try (ClaimStore s =
        FileStores.create(other, true, PosixFilePermissions.fromString("rw-rw-r--"))) {
      s.putIfAbsent("b", bytes(3), T).join();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(other.resolve("b"))))
          .isEqualTo("rw-rw-r--");
    }
  }

  @Test
  void aHungFilesystemShedsPastTheQueueBoundInsteadOfQueueing() throws Exception {
    Path fifo = root.resolve("hung");
    int made;
    try {
      made = new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor();
    } catch (IOException noMkfifo) {
      made = -1;
    }
    assumeTrue(made == 0, "needs mkfifo for an open(2) that blocks");
    DirectoryStore small =
        FileStores.create(root, false, PosixFilePermissions.fromString("rw-r-----"), 1, 2);
    try {
      // Opening a FIFO for reading blocks until a writer comes: the one thread hangs in open(2).
      CompletableFuture<byte[]> hung = small.getRange("hung", 0, 10, T);
      awaitNothingPending(small);
      List<CompletableFuture<byte[]>> queued = new ArrayList<>();
      queued.add(small.getRange("a", 0, 1, T));
      queued.add(small.getRange("b", 0, 1, T));
      CompletableFuture<byte[]> shed = small.getRange("c", 0, 1, T);
      assertThat(shed).isCompletedExceptionally();
      StoreException e = failure(shed);
      assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(e).hasMessageContaining("overloaded");
      assertThat(queued).noneMatch(CompletableFuture::isDone);

      new FileOutputStream(fifo.toFile()).close(); // a writer unblocks the reader's open

      hung.get(10, TimeUnit.SECONDS);
      for (CompletableFuture<byte[]> q : queued) {
        assertThat(failure(q).kind()).isEqualTo(Kind.NOT_FOUND);
      }
    } finally {
      small.close();
    }
  }

  /** Waits (bounded) until the store's thread has taken its queued work. */
  private static void awaitNothingPending(DirectoryStore s) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (s.pending() > 0 && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertThat(s.pending()).isZero();
  }

  private static void deleteTree(Path p) throws IOException {
    try (Stream<Path> all = Files.walk(p)) {
      for (Path each : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(each);
      }
    }
  }
}
