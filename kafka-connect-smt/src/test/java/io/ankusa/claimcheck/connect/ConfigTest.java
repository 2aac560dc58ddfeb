package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.Test;

/** Configuration is validated at configure() and the handle is released once. */
class ConfigTest {

  private final Map<String, Object> good = Wire.config(100);

  private static void assertRejects(Map<String, Object> props, String key) {
    assertThatThrownBy(() -> new CheckIn.Value<SourceRecord>().configure(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
    assertThatThrownBy(() -> new Redeem.Key<SinkRecord>().configure(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void missingStoresNamesTheKey() {
    Map<String, Object> props = new HashMap<>(good);
    props.remove("claimcheck.stores");
    assertRejects(props, "claimcheck.stores");
  }

  @Test
  void badCoreValuesNameTheirKeys() {
    assertRejects(Wire.with(good, "claimcheck.threshold.bytes", "0"), "claimcheck.threshold.bytes");
    assertRejects(Wire.with(good, "claimcheck.tenant", "Bad/Tenant"), "claimcheck.tenant");
    assertRejects(
        Wire.with(good, "claimcheck.read.deadline.ms", "soon"), "claimcheck.read.deadline.ms");
  }

  @Test
  void aConverterThatIsMissingOrNotAConverterNamesTheKey() {
    assertRejects(
        Wire.with(good, "claimcheck.converter", "no.such.Converter"), "claimcheck.converter");
    assertRejects(
        Wire.with(good, "claimcheck.converter", String.class.getName()), "claimcheck.converter");
  }

  @Test
  void converterSettingsItRejectsNameTheConverterKey() {
    Map<String, Object> props =
        Wire.with(good, "claimcheck.converter", "org.apache.kafka.connect.json.JsonConverter");
    props.put("claimcheck.converter.schemas.enable", "maybe");
    assertRejects(props, "claimcheck.converter");
  }

  @Test
  void theConfigDefHasEveryCoreKeyAndTheConverter() {
    assertThat(CheckIn.CONFIG_DEF.names())
        .containsAll(ClaimCheckConfig.CONFIG_DEF.names())
        .contains("claimcheck.converter");
    assertThat(new Redeem.Value<SinkRecord>().config().names())
        .isEqualTo(CheckIn.CONFIG_DEF.names());
    assertThat(CheckIn.CONFIG_DEF.defaultValues().get("claimcheck.converter"))
        .isEqualTo(org.apache.kafka.connect.converters.ByteArrayConverter.class);
  }

  @Test
  void closeIsIdempotentAndAClosedTransformRefusesRecords() {
    CheckIn.Value<SourceRecord> t = new CheckIn.Value<>();
    t.close(); // before configure: nothing to release
    t.configure(good);
    t.close();
    t.close();
    assertThatThrownBy(() -> t.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, new byte[] {1})))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(
            () -> new Redeem.Value<SinkRecord>().apply(Wire.sink(null, new byte[] {1}, List.of())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not configured");
  }

  @Test
  @SuppressWarnings("rawtypes") // ServiceLoader of a generic interface
  void theFourTransformsAreRegisteredAndVersioned() {
    List<String> names =
        ServiceLoader.load(Transformation.class).stream()
            .map(p -> p.type().getName())
            .filter(n -> n.startsWith("io.ankusa."))
            .sorted()
            .toList();
    assertThat(names)
        .containsExactly(
            "io.ankusa.claimcheck.connect.CheckIn$Key",
            "io.ankusa.claimcheck.connect.CheckIn$Value",
            "io.ankusa.claimcheck.connect.Redeem$Key",
            "io.ankusa.claimcheck.connect.Redeem$Value");
    assertThat(new CheckIn.Key<SourceRecord>().version()).matches("\\d+\\.\\d+\\.\\d+.*");
  }
}
