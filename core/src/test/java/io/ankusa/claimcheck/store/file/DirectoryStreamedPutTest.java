package io.ankusa.claimcheck.store.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ClaimStore#putStreamIfAbsent} on the file store: a temporary file linked to its name only
 * once complete (never replacing one), and nothing left behind by a write that failed or lost.
 */
class DirectoryStreamedPutTest {

  private static final Duration T = Duration.ofSeconds(10);

  @TempDir Path tmp;
  private Path root;
  private ClaimStore store;

  @BeforeEach
  void open() throws IOException {
    root = tmp.resolve("claims");
    StoreRoot.create(root);
    store =
        FileStores.create(
            root, true, PosixFilePermissions.fromString(FileStores.DEFAULT_PERMISSIONS));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private long temporaries() throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".tmp")).count();
    }
  }

  @Test
  void aStreamOfSeveralBuffersIsStoredWholeUnderItsKey() throws Exception {
    byte[] claim = bytes(3_500_000, 1);
    assertThat(store.putStreamIfAbsent("t/a", new ByteArrayInputStream(claim), claim.length, T))
        .isEqualTo(claim.length);
    assertThat(Files.readAllBytes(root.resolve("t/a"))).isEqualTo(claim);
    byte[] unknown = bytes(1_500_000, 2);
    assertThat(
            store.putStreamIfAbsent(
                "t/b", new ByteArrayInputStream(unknown), ClaimStore.UNKNOWN_LENGTH, T))
        .isEqualTo(unknown.length);
    assertThat(store.getRange("t/b", 1_000_000, 10, T).join())
        .isEqualTo(java.util.Arrays.copyOfRange(unknown, 1_000_000, 1_000_010));
    assertThat(temporaries()).isZero();
  }

  @Test
  void aSecondStreamedPutOfAKeyIsAlreadyExistsAndChangesNothing() throws Exception {
    byte[] first = bytes(100, 3);
    store.putStreamIfAbsent("t/c", new ByteArrayInputStream(first), first.length, T);
    assertThatThrownBy(
            () -> store.putStreamIfAbsent("t/c", new ByteArrayInputStream(bytes(100, 4)), 100, T))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.kind()).isEqualTo(Kind.ALREADY_EXISTS));
    assertThat(Files.readAllBytes(root.resolve("t/c"))).isEqualTo(first);
    assertThat(temporaries()).isZero();
  }

  @Test
  void aSourceThatFailsOrEndsEarlyLeavesNothingBehind() throws Exception {
    InputStream broken =
        new SequenceInputStream(
            new ByteArrayInputStream(bytes(2_000_000, 5)),
            new InputStream() {
              @Override
              public int read() throws IOException {
                throw new IOException("gone");
              }
            });
    assertThatThrownBy(() -> store.putStreamIfAbsent("t/d", broken, 3_000_000, T))
        .isInstanceOf(IOException.class)
        .hasMessage("gone");
    assertThatThrownBy(
            () -> store.putStreamIfAbsent("t/e", new ByteArrayInputStream(new byte[10]), 11, T))
        .isInstanceOf(EOFException.class);
    assertThat(Files.exists(root.resolve("t/d"))).isFalse();
    assertThat(Files.exists(root.resolve("t/e"))).isFalse();
    assertThat(temporaries()).isZero();
  }
}
