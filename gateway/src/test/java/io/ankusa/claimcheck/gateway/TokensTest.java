package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hashed tokens file: parsing, lookup, reload. */
class TokensTest {

  @TempDir Path dir;

  @Test
  void aTokenMapsToItsTenantAndRights() throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("t"),
            "# comment\n\n"
                + Tokens.hashHex("alpha")
                + " team-a read\n"
                + Tokens.hashHex("beta")
                + "  team-b   read,write\r\n"
                + Tokens.hashHex("gamma")
                + " team-c write\n");
    Tokens t = new Tokens(f);
    assertThat(t.lookup("alpha")).isEqualTo(new Grant("team-a", true, false));
    assertThat(t.lookup("beta")).isEqualTo(new Grant("team-b", true, true));
    assertThat(t.lookup("gamma")).isEqualTo(new Grant("team-c", false, true));
    assertThat(t.lookup("delta")).isNull();
    assertThat(t.lookup(Tokens.hashHex("alpha"))).as("the hash itself is no token").isNull();
  }

  @Test
  void cnLinesMapAClientCertificateNameToATenantAndRightsButNeverATokenOfThatName()
      throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("cn"),
            "cn:reader-a team-a read,write\ncn:reader-b team-b read\n"
                + Tokens.hashHex("alpha")
                + " team-a read\n");
    Tokens t = new Tokens(f);
    assertThat(t.lookupCn("reader-a")).isEqualTo(new Grant("team-a", true, true));
    assertThat(t.lookupCn("reader-b")).isEqualTo(new Grant("team-b", true, false));
    assertThat(t.lookupCn("Reader-A")).as("CNs match exactly").isNull();
    assertThat(t.lookup("cn:reader-a")).as("a cn line is no bearer token").isNull();
    assertThat(t.lookup("reader-a")).isNull();
    assertThat(t.lookupCn("alpha")).isNull();
    assertThatThrownBy(
            () -> new Tokens(Files.writeString(dir.resolve("cn-bad"), "cn: team-a read\n")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void badLinesAreNamedByNumberNeverByContent() throws Exception {
    String[] bad = {
      "abc team-a read", // not 64 hex
      Tokens.hashHex("x").toUpperCase() + " team-a read", // uppercase hex
      Tokens.hashHex("x") + " Team-A read", // not a tenant
      Tokens.hashHex("x") + " team-a admin", // no such right
      Tokens.hashHex("x") + " team-a", // missing field
    };
    for (String line : bad) {
      Path f = Files.writeString(dir.resolve("bad"), "\n" + line + "\n");
      assertThatThrownBy(() -> new Tokens(f))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("line 2")
          .hasMessageNotContaining(Tokens.hashHex("x"));
    }
  }

  @Test
  void reloadPutsAChangedFileInForceAndKeepsTheOldOneWhenTheNewDoesNotParse() throws Exception {
    Path f = Files.writeString(dir.resolve("t"), Tokens.hashHex("one") + " team-a read\n");
    Tokens t = new Tokens(f);
    assertThat(t.reload()).as("unchanged").isFalse();
    Files.writeString(f, Tokens.hashHex("two") + " team-b read\n");
    assertThat(t.reload()).isTrue();
    assertThat(t.lookup("one")).isNull();
    assertThat(t.lookup("two")).isEqualTo(new Grant("team-b", true, false));
    Files.writeString(f, "garbage\n");
    assertThat(t.reload()).isFalse();
    assertThat(t.lookup("two")).as("previous tokens stay").isNotNull();
    Files.delete(f);
    assertThat(t.reload()).isFalse();
    assertThat(t.lookup("two")).isNotNull();
  }
}
