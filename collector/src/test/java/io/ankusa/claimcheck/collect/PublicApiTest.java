package io.ankusa.claimcheck.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module's public API matches its committed baseline, {@code public-api.txt}: an accidental
 * break (or addition) fails the build. After a deliberate change, rerun with {@code
 * -Dapi.write=true} and review the file's diff.
 */
class PublicApiTest {

  @Test
  void thePublicApiMatchesItsBaseline() {
    Path classes = Path.of("target", "classes");
    assertThat(
            PublicApi.check(
                PublicApi.of(classes, getClass().getClassLoader()), Path.of("public-api.txt")))
        .as(
            "public API differs from public-api.txt (+ added, - removed); if deliberate,"
                + " regenerate with -Dapi.write=true and review the diff")
        .isEmpty();
  }
}
