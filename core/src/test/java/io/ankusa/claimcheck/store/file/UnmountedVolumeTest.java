package io.ankusa.claimcheck.store.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store root that is not there yet (an unmounted volume: its mount point an empty directory, or a
 * root missing below it) is unavailable on every read path and refuses writes, and nothing but an
 * explicit create ({@code file.create=true} on a writer, {@code claimcheck store init}) makes it a
 * store; a reader never creates or marks anything.
 */
class UnmountedVolumeTest {

  private static final Duration T = Duration.ofSeconds(10);

  @TempDir Path tmp;

  @Test
  void aReaderOnAnEmptyMountPointMarksNothingAndAnswersUnavailableOnEveryPath() throws Exception {
    Path mountPoint = Files.createDirectory(tmp.resolve("mnt"));
    try (ClaimStore reader = reader(mountPoint)) {
      assertEveryPathUnavailable(reader, "an empty directory");
    }
    assertThat(entries(mountPoint)).isEmpty();
  }

  @Test
  void aReaderOnAMissingRootCreatesNothingAndAnswersUnavailableOnEveryPath() throws Exception {
    Path root = tmp.resolve("mnt").resolve("claims");
    Files.createDirectory(tmp.resolve("mnt"));
    try (ClaimStore reader = reader(root)) {
      assertEveryPathUnavailable(reader, "does not exist");
    }
    assertThat(root).doesNotExist();
  }

  @Test
  void aStoreOpenedWithCreateThatOnlyReadsCreatesNothing() throws Exception {
    Path mountPoint = Files.createDirectory(tmp.resolve("mnt"));
    try (ClaimStore s = FileStores.create(mountPoint, true, perms())) {
      assertThat(failure(s.getRange("t/absent", 0, 4, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(s.list("t/", null, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(s.delete("t/absent", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
    assertThat(entries(mountPoint)).isEmpty();
  }

  @Test
  void theRefusalSaysWhatToDo() throws Exception {
    Path mountPoint = Files.createDirectory(tmp.resolve("mnt"));
    try (ClaimStore s = reader(mountPoint)) {
      StoreException put = failure(s.putIfAbsent("t/k", new byte[3], T));
      assertThat(put.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(put)
          .hasMessageContaining(mountPoint.toString())
          .hasMessageContaining(StoreRoot.MARKER)
          .hasMessageContaining("is the volume mounted?")
          .hasMessageContaining("claimcheck.file.create=true")
          .hasMessageContaining("claimcheck store init");
    }
  }

  @Test
  void afterInitTheHandlesOpenedBeforeItWorkWithoutARestart() throws Exception {
    Path root = tmp.resolve("claims");
    try (ClaimStore reader = reader(root);
        ClaimStore writer = reader(root)) {
      assertThat(failure(reader.getRange("t/absent", 0, 4, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(FileStoreProvider.initialize(root.toUri())).isTrue();
      assertThat(FileStoreProvider.initialize(root.toUri())).as("already a store").isFalse();
      assertThat(failure(reader.getRange("t/absent", 0, 4, T)).kind()).isEqualTo(Kind.NOT_FOUND);
      assertThat(reader.list("t/", null, T).join().objects()).isEmpty();
      writer.putIfAbsent("t/k", new byte[] {1, 2, 3}, T).join();
      assertThat(reader.getRange("t/k", 0, 3, T).join()).containsExactly(1, 2, 3);
    }
  }

  @Test
  void initRefusesAForeignDirectoryAndAMissingParent() throws IOException {
    Path foreign = Files.createDirectory(tmp.resolve("home"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    assertThatThrownBy(() -> FileStoreProvider.initialize(foreign.toUri()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not empty");
    assertThat(entries(foreign)).containsExactly(foreign.resolve("notes.txt"));
    Path deep = tmp.resolve("no/parent/claims");
    assertThatThrownBy(() -> FileStoreProvider.initialize(deep.toUri()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("parent");
    assertThat(tmp.resolve("no")).doesNotExist();
  }

  /**
   * The case through the public API: a consumer starting before its volume is mounted. It
   * answered NOT_FOUND (final: dead-lettered) for every claim and wrote a marker on the bare mount
   * point; now it answers UNAVAILABLE, marks nothing, and redeems once the volume is there.
   */
  @Test
  void aConsumerStartingBeforeTheMountNeverSaysNotFoundAndRedeemsOnceMounted() throws Exception {
    Path mountPoint = tmp.resolve("mnt");
    Path volume = tmp.resolve("volume");
    String tenant = "t" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, Object> writerConfig = config(mountPoint, tenant);
    writerConfig.put(ClaimCheckConfig.FILE_CREATE, "true");
    Files.createDirectory(mountPoint);
    byte[] value = new byte[100];
    Arrays.fill(value, (byte) 7);
    ClaimRef ref;
    try (ClaimCheck writer = ClaimCheck.open(writerConfig)) {
      ref = writer.checkIn(value);
    }
    Files.move(mountPoint, volume); // unmounted: the bare mount point stays behind
    Files.createDirectory(mountPoint);

    try (ClaimCheck consumer = ClaimCheck.open(config(mountPoint, tenant))) {
      assertThatThrownBy(
              () ->
                  consumer
                      .redeem(ref, consumer.ticker().read() + TimeUnit.SECONDS.toNanos(1))
                      .join())
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE));
      assertThat(entries(mountPoint)).as("nothing written on the bare mount point").isEmpty();
      try (ClaimStore store = consumer.config().stores().get(0).open()) {
        // The collector's listing of the tenant (module collector) sees this store failure.
        assertThatThrownBy(() -> store.list(tenant + "/", null, T).join())
            .isInstanceOf(CompletionException.class)
            .cause()
            .isInstanceOfSatisfying(
                StoreException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE));
      }

      Files.delete(mountPoint); // mounted
      Files.move(volume, mountPoint);
      assertThat(
              consumer.redeem(ref, consumer.ticker().read() + TimeUnit.SECONDS.toNanos(10)).join())
          .isEqualTo(value);
    }
  }

  private static Map<String, Object> config(Path root, String tenant) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, root.toUri().toString());
    m.put(ClaimCheckConfig.TENANT, tenant);
    m.put(ClaimCheckConfig.COOLDOWN_MS, "0");
    return m;
  }

  private static void assertEveryPathUnavailable(ClaimStore s, String why) {
    StoreException miss = failure(s.getRange("t/absent", 0, 4, T));
    assertThat(miss.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(miss).hasMessageContaining(why);
    assertThat(failure(s.getRange("t/absent", 0, 0, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(s.list("", null, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(s.list("t/", null, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(s.list("t/", "t/a", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(s.delete("t/absent", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(s.putIfAbsent("t/new", new byte[3], T)).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  private static ClaimStore reader(Path root) {
    return FileStores.create(root, false, perms());
  }

  private static java.util.Set<java.nio.file.attribute.PosixFilePermission> perms() {
    return PosixFilePermissions.fromString(FileStores.DEFAULT_PERMISSIONS);
  }

  private static java.util.List<Path> entries(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }

  private static StoreException failure(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof StoreException se) {
        return se;
      }
      throw new AssertionError("expected a StoreException", e.getCause());
    }
    throw new AssertionError("expected a StoreException");
  }
}
