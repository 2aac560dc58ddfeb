package io.ankusa.claimcheck.store.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directory store's listing walks the tree once per listing, whatever the number of pages, in
 * exact key order; a token whose walk is no longer kept still resumes after its key.
 */
class DirectoryListingTest {

  private static final int FLAT = 1_500;
  private static final int SHARDS = 10;
  private static final int PER_SHARD = 60;

  @TempDir Path root;
  private final TreeSet<String> keys = new TreeSet<>();

  @BeforeEach
  void packs() throws IOException {
    StoreRoot.create(root);
    Path tenant = Files.createDirectory(root.resolve("t"));
    for (int i = 0; i < FLAT; i++) {
      put(tenant, String.format("%016x", i * 7919L));
    }
    for (int s = 0; s < SHARDS; s++) {
      Path shard = Files.createDirectory(tenant.resolve(String.format("%02x", s * 11)));
      for (int i = 0; i < PER_SHARD; i++) {
        put(shard, String.format("%016x", s * 1000L + i));
      }
    }
    Files.write(tenant.resolve(".put-1.tmp"), new byte[3]); // never an object
  }

  @Test
  void aListingOfManyPagesReadsEachDirectoryOnce() throws IOException {
    DirectoryListing listing = new DirectoryListing(root);
    List<String> listed = listAll(listing, "t/");
    assertThat(listed).containsExactlyElementsOf(keys);
    // The tenant's directory and each shard's, once: a walk per page read them once per page.
    assertThat(listing.directoriesRead()).isEqualTo(1 + SHARDS);
  }

  @Test
  void aTokenWhoseWalkIsGoneResumesAfterItsKeyReadingNothingThatSortsBefore() throws IOException {
    String token = new DirectoryListing(root).page("t/", null).continuation();
    assertThat(token).isNotNull();
    DirectoryListing restarted = new DirectoryListing(root); // another process, or a restart
    List<String> rest = new ArrayList<>();
    for (String t = token; t != null; ) {
      ListPage page = restarted.page("t/", t);
      rest.addAll(keys(page));
      t = page.continuation();
    }
    assertThat(rest).containsExactlyElementsOf(keys.tailSet(token, false));
    long shardsNotBefore = 0;
    for (int s = 0; s < SHARDS; s++) {
      String dir = String.format("t/%02x/", s * 11);
      if (dir.compareTo(token) > 0 || token.startsWith(dir)) {
        shardsNotBefore++;
      }
    }
    assertThat(shardsNotBefore).as("the first page covers some shards").isLessThan(SHARDS);
    // The tenant's directory once more, and only the shards holding keys after the token.
    assertThat(restarted.directoriesRead()).isEqualTo(1 + shardsNotBefore);
  }

  @Test
  void manyListingsAtOnceStayCorrectPastTheWalksKept() throws IOException {
    DirectoryListing listing = new DirectoryListing(root);
    int n = DirectoryListing.MAX_CURSORS + 2;
    List<List<String>> listed = new ArrayList<>();
    String[] tokens = new String[n];
    boolean[] done = new boolean[n];
    for (int i = 0; i < n; i++) {
      listed.add(new ArrayList<>());
    }
    int remaining = n;
    while (remaining > 0) {
      for (int i = 0; i < n; i++) { // interleaved: the oldest paused walks are dropped
        if (done[i]) {
          continue;
        }
        ListPage p = listing.page("t/", tokens[i]);
        listed.get(i).addAll(keys(p));
        tokens[i] = p.continuation();
        if (tokens[i] == null) {
          done[i] = true;
          remaining--;
        }
      }
    }
    for (List<String> l : listed) {
      assertThat(l).containsExactlyElementsOf(keys);
    }
  }

  @Test
  void keysSortAsStringsAcrossDirectoriesAndPrefixesCutInsideNames() throws IOException {
    Path other = Files.createDirectory(root.resolve("o"));
    Files.write(other.resolve("a-b"), new byte[1]);
    Files.write(other.resolve("a0"), new byte[1]);
    Files.createDirectories(other.resolve("a"));
    Files.write(other.resolve("a").resolve("x"), new byte[1]);
    Files.write(other.resolve("a").resolve(".put-2.tmp"), new byte[1]);
    Files.createDirectories(other.resolve("ab"));
    Files.write(other.resolve("ab").resolve("y"), new byte[2]);
    DirectoryListing listing = new DirectoryListing(root);
    assertThat(keys(listing.page("o/", null))).containsExactly("o/a-b", "o/a/x", "o/a0", "o/ab/y");
    assertThat(keys(listing.page("o/", "o/a/x"))).containsExactly("o/a0", "o/ab/y");
    assertThat(keys(listing.page("o/a", "o/a-b"))).containsExactly("o/a/x", "o/a0", "o/ab/y");
    assertThat(keys(listing.page("o/ab", null))).containsExactly("o/ab/y");
    assertThat(keys(listing.page("o/a/", null))).containsExactly("o/a/x");
    assertThat(keys(listing.page("o/zz/", null))).isEmpty();
    assertThat(listing.page("o/ab", null).objects().get(0).size()).isEqualTo(2);
  }

  private void put(Path dir, String name) throws IOException {
    Files.write(dir.resolve(name), new byte[] {1});
    keys.add(root.relativize(dir.resolve(name)).toString().replace('\\', '/'));
  }

  private static List<String> listAll(DirectoryListing listing, String prefix) throws IOException {
    List<String> all = new ArrayList<>();
    String token = null;
    do {
      ListPage p = listing.page(prefix, token);
      assertThat(p.objects().size()).isLessThanOrEqualTo(DirectoryListing.PAGE);
      all.addAll(keys(p));
      token = p.continuation();
    } while (token != null);
    return all;
  }

  private static List<String> keys(ListPage p) {
    return p.objects().stream().map(StoredObject::key).toList();
  }
}
