package io.ankusa.claimcheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code claimcheck keys new} writes a {@code local:} key file only its owner can read, which a
 * writer and a reader then use; {@code inspect --redeem} shows an encrypted claim's KEK id.
 */
class KeysCommandTest {

  @TempDir Path tmp;

  record Run(int code, String out, String err) {}

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

  @Test
  void keysNewWritesAnOwnerOnlyKeyFileThatEncryptsAndInspectNamesItsKek() throws Exception {
    Path key = tmp.resolve("acme.key");
    Run made = run("keys", "new", "--out", key.toString());
    assertThat(made.code()).as(made.err()).isZero();
    assertThat(made.out()).contains("claimcheck.encryption.kek=local:" + key);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
        .isEqualTo("rw-------");
    Run again = run("keys", "new", "--out", key.toString());
    assertThat(again.code()).isNotZero();
    assertThat(again.err()).contains("never overwritten");

    Path root = Files.createDirectory(tmp.resolve("claims"));
    Run init = run("store", "init", root.toUri().toString());
    assertThat(init.code()).as(init.err()).isZero();
    Map<String, Object> config =
        Map.of(
            "claimcheck.stores",
            root.toUri().toString(),
            "claimcheck.encryption.kek",
            "local:" + key);
    byte[] value = "a secret payload, encrypted".repeat(100).getBytes(StandardCharsets.UTF_8);
    ClaimRef ref;
    try (ClaimCheck cc = ClaimCheck.open(config)) {
      ref = cc.checkIn(value);
      assertThat(cc.redeem(ref, cc.ticker().read() + 5_000_000_000L).join()).isEqualTo(value);
    }
    Path props = tmp.resolve("claimcheck.properties");
    Files.writeString(
        props,
        "bootstrap.servers=localhost:1\nclaimcheck.stores="
            + root.toUri()
            + "\nclaimcheck.encryption.kek=local:"
            + key
            + "\n");
    Run inspect =
        run(
            "inspect",
            HexFormat.of().formatHex(RefCodec.encode(ref)),
            "--redeem",
            "--config",
            props.toString(),
            "--json");
    assertThat(inspect.code()).as(inspect.err() + inspect.out()).isZero();
    assertThat(inspect.out())
        .contains("\"encrypted\":true")
        .contains("\"kek_id\":\"local:" + key + "\"")
        .contains("\"redeemed\":true");
  }
}
