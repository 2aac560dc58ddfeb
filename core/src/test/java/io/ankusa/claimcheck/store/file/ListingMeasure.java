package io.ankusa.claimcheck.store.file;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Measures listing 20,000 packs (run by hand: -Dtest=ListingMeasure). */
class ListingMeasure {
  @TempDir Path root;

  @Test
  void measure() throws Exception {
    Files.write(root.resolve(".claimcheck-store"), new byte[] {1});
    Path flat = Files.createDirectories(root.resolve("flat"));
    Path sharded = Files.createDirectories(root.resolve("sharded"));
    for (int i = 0; i < 20_000; i++) {
      Files.write(flat.resolve(String.format("%016x", i * 7919L)), new byte[] {1});
      Path shard = sharded.resolve(String.format("%02x", i % 256));
      Files.createDirectories(shard);
      Files.write(shard.resolve(String.format("%016x", i * 7919L)), new byte[] {1});
    }
    try (ClaimStore s =
        new ClaimCheckConfig(Map.of("claimcheck.stores", root.toUri().toString()))
            .stores()
            .get(0)
            .open()) {
      for (int round = 0; round < 3; round++) {
        for (String prefix : new String[] {"flat/", "sharded/"}) {
          long start = System.nanoTime();
          int n = 0;
          int pages = 0;
          String token = null;
          do {
            ListPage p = s.list(prefix, token, Duration.ofMinutes(5)).join();
            n += p.objects().size();
            pages++;
            token = p.continuation();
          } while (token != null);
          System.out.printf(
              "MEASURE %s %d objects %d pages %d ms%n",
              prefix, n, pages, (System.nanoTime() - start) / 1_000_000);
        }
      }
    }
  }
}
