package io.ankusa.claimcheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code claimcheck store init} as an operator runs it (through the CLI's entry point): it makes
 * the file stores that writers and readers, which never create one, then use.
 */
class StoreInitCommandTest {

  private static final String MARKER = ".claimcheck-store";

  @TempDir Path tmp;

  @Test
  void initCreatesTheStoresOfAConfigAndSkipsOtherSchemes() throws IOException {
    Path root = tmp.resolve("claims");
    String uri = root.toUri().toString();
    Path config = tmp.resolve("claimcheck.properties");
    Files.writeString(config, "claimcheck.stores=" + uri + ",s3://bucket-b/p\n");

    Run first = run("store", "init", "--config", config.toString());
    assertThat(first.code).as(first.err).isZero();
    assertThat(first.out)
        .contains("store 0 " + uri + ": created")
        .contains("store 1 s3://bucket-b/p: skipped");
    assertThat(root.resolve(MARKER)).isRegularFile();

    Run again = run("store", "init", "--config", config.toString(), "--json");
    assertThat(again.code).isZero();
    assertThat(again.out).contains("already a store");
  }

  @Test
  void afterInitAWriterAndAReaderWithoutCreateWork() throws Exception {
    Path root = Files.createDirectory(tmp.resolve("mnt"));
    Map<String, Object> config =
        Map.of(
            ClaimCheckConfig.STORES,
            root.toUri().toString(),
            ClaimCheckConfig.OP_DEADLINE_MS,
            "1000");
    try (ClaimCheck before = ClaimCheck.open(config)) {
      assertThat(catching(() -> before.checkIn(new byte[] {1}))).contains("store init");
    }
    assertThat(list(root)).as("a refused writer marks nothing").isEmpty();

    Run init = run("store", "init", root.toUri().toString());
    assertThat(init.code).as(init.err).isZero();
    assertThat(init.out).contains("created");

    try (ClaimCheck cc = ClaimCheck.open(config)) {
      ClaimRef ref = cc.checkIn(new byte[] {4, 5, 6});
      assertThat(cc.redeem(ref, cc.ticker().read() + TimeUnit.SECONDS.toNanos(10)).join())
          .containsExactly(4, 5, 6);
    }
  }

  @Test
  void initRefusesAForeignDirectoryAndLeavesItAlone() throws IOException {
    Path foreign = Files.createDirectory(tmp.resolve("home"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    Run r = run("store", "init", foreign.toUri().toString());
    assertThat(r.code).isEqualTo(ExitCodes.ERROR);
    assertThat(r.out).contains("refused").contains("not empty");
    assertThat(list(foreign)).containsExactly(foreign.resolve("notes.txt"));
  }

  @Test
  void initNeedsAConfigOrURIsAndRefusesABadURIWithoutShowingIt() {
    assertThat(run("store", "init").code).isEqualTo(ExitCodes.USAGE);
    Run bad = run("store", "init", "s3:AKIA0000:pl4nted-secret@bucket");
    assertThat(bad.code).isEqualTo(ExitCodes.CONFIG);
    assertThat(bad.out + bad.err).doesNotContain("pl4nted-secret");
  }

  private static String catching(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      return String.valueOf(e.getMessage());
    }
    throw new AssertionError("expected a failure");
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ClaimCheckCli.run(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
