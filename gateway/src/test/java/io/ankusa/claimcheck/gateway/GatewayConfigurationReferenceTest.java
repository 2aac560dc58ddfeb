package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.junit.jupiter.api.Test;

/**
 * The gateway's section of {@code docs/configuration.md} (from its heading to the end; the rest is
 * kafka-connect-smt's {@code ConfigurationReferenceTest}'s) is generated from {@link
 * GatewayConfig#GATEWAY_DEF} and must match it.
 *
 * <p>Regenerate with {@code mvn -pl gateway -am test -Dtest=GatewayConfigurationReferenceTest
 * -Ddocs.write=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class GatewayConfigurationReferenceTest {

  private static final Path PAGE = Path.of("..", "docs", "configuration.md");
  static final String HEADING = "## Gateway only";

  @Test
  void theCommittedGatewaySectionMatchesTheConfigDef() throws IOException {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    int at = page.indexOf(HEADING);
    String generated = render();
    if (Boolean.getBoolean("docs.write")) {
      String head = at < 0 ? page : page.substring(0, at);
      Files.writeString(PAGE, head + generated, StandardCharsets.UTF_8);
      page = head + generated;
      at = head.length();
    }
    assertThat(at).as("docs/configuration.md has a gateway section").isNotNegative();
    assertThat(page.substring(at))
        .as("docs/configuration.md's gateway section is stale: regenerate it (see javadoc)")
        .isEqualTo(generated);
  }

  static String render() {
    StringBuilder b = new StringBuilder();
    b.append(HEADING)
        .append(" (`claimcheck-gateway.jar`: these keys and every core key above)\n\n")
        .append("| key | type | default | valid values | importance | description |\n")
        .append("|---|---|---|---|---|---|\n");
    for (ConfigKey k : new TreeMap<>(GatewayConfig.GATEWAY_DEF.configKeys()).values()) {
      b.append("| `")
          .append(k.name)
          .append("` | ")
          .append(k.type.name().toLowerCase(Locale.ROOT))
          .append(" | ")
          .append(defaultOf(k))
          .append(" | ")
          .append(k.validator == null ? "" : cell(k.validator.toString()))
          .append(" | ")
          .append(k.importance.name().toLowerCase(Locale.ROOT))
          .append(" | ")
          .append(cell(k.documentation))
          .append(" |\n");
    }
    return b.append('\n').toString();
  }

  private static String defaultOf(ConfigKey k) {
    if (!k.hasDefault()) {
      return "(required)";
    }
    if (k.defaultValue == null) {
      return "(none)";
    }
    if (k.type == ConfigDef.Type.PASSWORD) {
      return "(hidden)";
    }
    String s = String.valueOf(k.defaultValue);
    return s.isEmpty() ? "\"\"" : "`" + s + "`";
  }

  private static String cell(String s) {
    return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
  }
}
