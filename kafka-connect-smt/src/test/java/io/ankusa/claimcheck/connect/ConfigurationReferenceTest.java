package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.ClaimCheckSerdeConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} is generated from the {@code ConfigDef}s and must match them: a key
 * added, removed or re-documented without regenerating the page fails this test.
 *
 * <p>Regenerate with {@code mvn -pl kafka-connect-smt -am test -Dtest=ConfigurationReferenceTest
 * -Ddocs.write=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ConfigurationReferenceTest {

  private static final Path PAGE = Path.of("..", "docs", "configuration.md");

  /** Where the gateway's section begins: the gateway module's own test generates it. */
  static final String GATEWAY_SECTION = "## Gateway only";

  @Test
  void theCommittedReferenceMatchesTheConfigDefs() throws IOException {
    String generated = render();
    String page = Files.exists(PAGE) ? Files.readString(PAGE, StandardCharsets.UTF_8) : "";
    int gateway = page.indexOf(GATEWAY_SECTION);
    String ours = gateway < 0 ? page : page.substring(0, gateway);
    if (Boolean.getBoolean("docs.write")) {
      Files.writeString(
          PAGE, generated + (gateway < 0 ? "" : page.substring(gateway)), StandardCharsets.UTF_8);
      ours = generated;
    }
    assertThat(Files.exists(PAGE)).as("%s exists", PAGE).isTrue();
    assertThat(ours)
        .as("docs/configuration.md is stale: regenerate it (see this test's javadoc)")
        .isEqualTo(generated);
  }

  static String render() {
    ConfigDef core = ClaimCheckConfig.CONFIG_DEF;
    StringBuilder b = new StringBuilder();
    b.append("# Configuration reference\n\n")
        .append("Generated from the `ConfigDef`s by `ConfigurationReferenceTest`; do not edit by")
        .append(" hand.\n\n")
        .append("Every surface reads the core keys. A bad value throws a `ConfigException`")
        .append(" naming the key, and an unknown `claimcheck.*` key is refused. Secrets (type")
        .append(" `password`) are never printed.\n\n")
        .append("Per store, `claimcheck.store.<i>.<setting>` overrides a setting for the store at")
        .append(" index `<i>` of `claimcheck.stores`. The settings a store may override: ")
        .append(
            new java.util.TreeSet<>(ClaimCheckConfig.PER_STORE_SETTINGS)
                .stream()
                    .map(x -> "`" + x + "`")
                    .collect(java.util.stream.Collectors.joining(", ")))
        .append(".\n\n");
    section(
        b,
        "Core keys (serializer, deserializer, Streams serde, Connect transforms, CLI)",
        core,
        Set.of());
    section(
        b,
        "Serializer, deserializer and Streams serde only",
        ClaimCheckSerdeConfig.CONFIG_DEF,
        core.names());
    section(
        b,
        "Connect transforms only (`CheckIn`, `Redeem`)",
        TransformConfig.CONFIG_DEF,
        core.names());
    section(
        b,
        "Connect converter only (`ClaimCheckConverter`)",
        ConverterConfig.CONFIG_DEF,
        core.names());
    b.append("Plugged-in stores (each from its own module's jar) have per-store settings only:")
        .append(" `claimcheck.store.<i>.<setting>` for the store at index `<i>`.\n\n");
    section(
        b,
        "Azure Blob store (`abs://account/container[/prefix]`, `claimcheck-store-azure`)",
        new io.ankusa.claimcheck.store.azure.AzureStoreProvider().settings(),
        Set.of());
    section(
        b,
        "Google Cloud Storage store (`gs://bucket[/prefix]`, `claimcheck-store-gcs`)",
        new io.ankusa.claimcheck.store.gcs.GcsStoreProvider().settings(),
        Set.of());
    return b.toString();
  }

  private static void section(StringBuilder b, String title, ConfigDef def, Set<String> skip) {
    b.append("## ")
        .append(title)
        .append("\n\n")
        .append("| key | type | default | valid values | importance | description |\n")
        .append("|---|---|---|---|---|---|\n");
    List<ConfigKey> keys = new ArrayList<>(new TreeMap<>(def.configKeys()).values());
    for (ConfigKey k : keys) {
      if (skip.contains(k.name)) {
        continue;
      }
      b.append("| `")
          .append(k.name)
          .append("` | ")
          .append(k.type.name().toLowerCase(java.util.Locale.ROOT))
          .append(" | ")
          .append(defaultOf(k))
          .append(" | ")
          .append(validValues(k))
          .append(" | ")
          .append(k.importance.name().toLowerCase(java.util.Locale.ROOT))
          .append(" | ")
          .append(cell(k.documentation))
          .append(" |\n");
    }
    b.append('\n');
  }

  /** The validator's own description; a lambda's toString says nothing (and changes per run). */
  private static String validValues(ConfigKey k) {
    if (k.validator == null) {
      return "";
    }
    String v = k.validator.toString();
    return v.contains("$$Lambda") || v.matches(".*@[0-9a-f]+$") ? "see description" : cell(v);
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
    Object v = k.defaultValue;
    String s =
        v instanceof Class<?> c
            ? c.getName()
            : v instanceof List<?> l
                ? String.join(",", l.stream().map(String::valueOf).toList())
                : String.valueOf(v);
    return s.isEmpty() ? "\"\"" : "`" + s + "`";
  }

  private static String cell(String s) {
    return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
  }
}
