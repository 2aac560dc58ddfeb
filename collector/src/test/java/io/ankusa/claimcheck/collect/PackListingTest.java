package io.ankusa.claimcheck.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pack keys at both layouts, paged listing, and a failing listing (in-memory store). */
class PackListingTest {

  private static final Duration T = Duration.ofSeconds(5);

  @Test
  void packKeysAreReadAtBothLayoutsAndNothingElseIsAPack() {
    long id = 0xab12cd34ef567890L;
    assertThat(PackKeys.packId("t", KeyLayout.FLAT.key("t", id))).contains(new PackId(id));
    assertThat(PackKeys.packId("t", KeyLayout.SHARDED.key("t", id))).contains(new PackId(id));
    assertThat(PackKeys.packId("t", "t/cd/ab12cd34ef567890")).as("shard must match").isEmpty();
    assertThat(PackKeys.packId("t", "t/.put-1.tmp")).isEmpty();
    assertThat(PackKeys.packId("t", "t/AB12CD34EF567890")).isEmpty();
    assertThat(PackKeys.packId("t", "tt/ab12cd34ef567890")).isEmpty();
    assertThat(PackKeys.tenantOf("team-a/ab12cd34ef567890")).contains("team-a");
    assertThat(PackKeys.tenantOf("Bad/x")).isEmpty();
  }

  @Test
  void listsEveryPageOfOneTenantAtBothLayouts() {
    MemoryStore store = MemoryStores.create("list", (wait, then) -> then.run());
    Set<PackId> written = new HashSet<>();
    for (long i = 1; i <= 2500; i++) {
      long id = i * 0x9E3779B97F4A7C15L;
      written.add(new PackId(id));
      store
          .putIfAbsent(
              (i % 2 == 0 ? KeyLayout.FLAT : KeyLayout.SHARDED).key("a", id),
              new byte[] {1, 2, 3},
              T)
          .join();
    }
    store.putIfAbsent(KeyLayout.FLAT.key("ab", 7), new byte[1], T).join();
    store.putIfAbsent("a/not-a-pack", new byte[1], T).join();
    Instant old = Instant.parse("2020-01-01T00:00:00Z");
    store.lastModified(KeyLayout.FLAT.key("a", 2 * 0x9E3779B97F4A7C15L), old);

    PackListing.Result r = PackListing.list(store, 3, "a", T);

    assertThat(r.packs()).hasSize(2500);
    assertThat(r.otherObjects()).isEqualTo(1);
    assertThat(r.packs())
        .extracting(StoredPack::packId)
        .containsExactlyInAnyOrderElementsOf(written);
    assertThat(r.packs())
        .allSatisfy(
            p -> {
              assertThat(p.store()).isEqualTo(3);
              assertThat(p.size()).isEqualTo(3);
            });
    assertThat(r.packs()).filteredOn(p -> p.lastModified().equals(old)).hasSize(1);
    assertThat(store.count(MemoryStore.Op.LIST)).isEqualTo(3);
    assertThat(PackListing.list(store, 0, null, T).packs()).hasSize(2501);
  }

  @Test
  void aDirectoryStoreListsItsPacksAtBothLayoutsSkippingTemporaryFiles(@TempDir Path dir)
      throws Exception {
    try (ClaimStore store =
        (new ClaimCheckConfig(
                    java.util.Map.of(
                        ClaimCheckConfig.STORES,
                        dir.toUri().toString(),
                        ClaimCheckConfig.FILE_CREATE,
                        "true"))
                .stores()
                .get(0))
            .open()) {
      for (long i = 1; i <= 1200; i++) {
        store
            .putIfAbsent(
                (i % 2 == 0 ? KeyLayout.FLAT : KeyLayout.SHARDED).key("a", i << 40),
                new byte[] {9, 9},
                T)
            .join();
      }
      Files.write(dir.resolve("a").resolve(".put-1.tmp"), new byte[5]);
      PackListing.Result r = PackListing.list(store, 0, "a", T);
      assertThat(r.packs()).hasSize(1200).allSatisfy(p -> assertThat(p.size()).isEqualTo(2));
      assertThat(r.otherObjects()).isZero();
      assertThat(PackListing.list(store, 0, "b", T).packs()).isEmpty();
    }
  }

  @Test
  void aFailedListingPageFailsTheWholeListing() {
    MemoryStore store = MemoryStores.create("fail", (wait, then) -> then.run());
    for (long i = 1; i <= 1500; i++) {
      store.putIfAbsent(KeyLayout.FLAT.key("a", i), new byte[1], T).join();
    }
    store.failTimes(MemoryStore.Op.LIST, StoreException.Kind.UNAVAILABLE, 1);
    assertThatThrownBy(() -> PackListing.list(store, 0, "a", T))
        .isInstanceOf(StoreException.class)
        .extracting(e -> ((StoreException) e).kind())
        .isEqualTo(StoreException.Kind.UNAVAILABLE);
  }

  /**
   * Another deployment whose store prefix is nested at {@code <ours>/t/}, with a two-hex-digit
   * tenant {@code ab} at the flat layout, writes {@code t/ab/<id>}: one in 256 of its keys is a
   * perfect sharded key of our tenant {@code t}, and was listed (so deleted) as ours.
   */
  @Test
  void aNestedDeploymentsFlatKeysUnderAShardDirectoryAreNeverTakenForOurs() {
    MemoryStore store = MemoryStores.create("nested", (wait, then) -> then.run());
    long ours = 0xcd12cd34ef567890L;
    store.putIfAbsent(KeyLayout.SHARDED.key("t", ours), new byte[1], T).join();
    store.putIfAbsent(KeyLayout.FLAT.key("t", 5), new byte[1], T).join();
    long lookalike = 0xab00000000000001L; // its shard is its tenant's name
    store.putIfAbsent("t/" + KeyLayout.FLAT.key("ab", lookalike), new byte[1], T).join();
    store.putIfAbsent("t/" + KeyLayout.FLAT.key("ab", 0x1234567890abcdefL), new byte[1], T).join();

    PackListing.Result r = PackListing.list(store, 0, "t", T);

    assertThat(r.packs())
        .extracting(StoredPack::packId)
        .containsExactlyInAnyOrder(new PackId(ours), new PackId(5));
    assertThat(r.foreignDirectories()).containsExactly("t/ab/");
    assertThat(r.otherObjects()).isEqualTo(2);
    assertThat(PackListing.list(store, 0, null, T).packs())
        .extracting(StoredPack::key)
        .doesNotContain("t/ab/ab00000000000001");
  }
}
