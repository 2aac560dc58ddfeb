package io.ankusa.claimcheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI's {@code --config FILE} takes the same {@code claimcheck.*} keys the serde uses (its
 * README says so): a client's config file works as it is, and only a key no part of the library
 * reads is refused.
 */
class CliConfigTest {

  @TempDir Path tmp;

  private Path file(String... lines) throws IOException {
    Path f = tmp.resolve("claimcheck.properties");
    Files.writeString(f, "claimcheck.stores=memory:cli-config\n" + String.join("\n", lines));
    return f;
  }

  @Test
  void theSerdesAndTheTransformsKeysAreAcceptedNotRefused() throws IOException {
    Path f =
        file(
            "claimcheck.value.serde=org.apache.kafka.common.serialization.Serdes$StringSerde",
            "claimcheck.key.serde=org.apache.kafka.common.serialization.Serdes$StringSerde",
            "claimcheck.streams.final.failure=continue",
            "claimcheck.write.max.inflight=4",
            "claimcheck.converter=org.apache.kafka.connect.json.JsonConverter",
            "claimcheck.converter.schemas.enable=false",
            "claimcheck.store.0.op.deadline.ms=1500");
    CliConfig c = CliConfig.load(f, false);
    assertThat(c.claimCheck().stores()).hasSize(1);
    assertThat(c.claimCheck().stores().get(0).opDeadline().toMillis()).isEqualTo(1500);
    assertThat(c.all()).containsKey("claimcheck.value.serde");
  }

  @Test
  void aKeyNoPartOfTheLibraryReadsIsRefusedNamingIt() throws IOException {
    for (String key :
        new String[] {
          "claimcheck.value.serdes", "claimcheck.converterr.x", "claimcheck.store.x.op.deadline.ms"
        }) {
      Path f = file(key + "=s3cr3t-value");
      assertThatThrownBy(() -> CliConfig.load(f, false))
          .isInstanceOf(CliException.class)
          .hasMessageContaining(key)
          .hasMessageContaining("unknown claimcheck key")
          .hasMessageNotContaining("s3cr3t-value");
    }
  }
}
