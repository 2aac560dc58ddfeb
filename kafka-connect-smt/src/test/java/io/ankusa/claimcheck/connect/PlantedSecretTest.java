package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A secret planted under wrong or odd keys never shows in what either transform throws at configure
 * (message, causes, suppressed); and a {@code claimcheck.} key no transform reads is refused by
 * name.
 */
class PlantedSecretTest {

  private static final String SECRET = "pl4nted-S3CRET-" + UUID.randomUUID();

  static Stream<Map<String, Object>> planted() {
    List<Map<String, Object>> cases = new ArrayList<>();
    for (String key :
        List.of(
            "claimcheck.s3.secret.acces.key",
            "claimcheck.secret",
            "claimcheck.store.5.s3.secret.access.key",
            "claimcheck.store.0.s3.secret.acces.key",
            "claimcheck.store.0.api.key",
            "claimcheck.value.serde", // the serde's, not a transform's
            "claimcheck.converterr.password")) {
      cases.add(Wire.with(Wire.config(100), key, SECRET));
    }
    cases.add(Wire.with(Wire.config(100), "claimcheck.token", new Password(SECRET)));
    for (String uri : io.ankusa.claimcheck.config.PlantedSecretTest.storeUrisCarrying(SECRET)) {
      cases.add(Wire.with(Wire.config(100), "claimcheck.stores", uri)); // every form of one
    }
    // A converter whose own message would quote a secret-named setting's value.
    Map<String, Object> converter =
        Wire.with(Wire.config(100), "claimcheck.converter", QuotingConverter.class.getName());
    converter.put("claimcheck.converter.basic.auth.user.info", SECRET);
    cases.add(converter);
    return cases.stream();
  }

  private static String printed(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c).append('\n');
      for (Throwable s : c.getSuppressed()) {
        b.append(printed(s));
      }
    }
    return b.toString();
  }

  private static void refusedQuietly(Supplier<Transformation<?>> t, Map<String, Object> props) {
    Transformation<?> transform = t.get();
    try {
      assertThatThrownBy(() -> transform.configure(props))
          .isInstanceOf(ConfigException.class)
          .satisfies(e -> assertThat(printed(e)).doesNotContain(SECRET));
    } finally {
      transform.close();
    }
  }

  @ParameterizedTest
  @MethodSource("planted")
  void checkInRefusesItQuietly(Map<String, Object> props) {
    refusedQuietly(CheckIn.Value<SourceRecord>::new, props);
    refusedQuietly(CheckIn.Key<SourceRecord>::new, props);
  }

  @ParameterizedTest
  @MethodSource("planted")
  void redeemRefusesItQuietly(Map<String, Object> props) {
    refusedQuietly(Redeem.Value<SinkRecord>::new, props);
    refusedQuietly(Redeem.Key<SinkRecord>::new, props);
  }

  @Test
  void anUnknownClaimCheckKeyIsRefusedByName() {
    Map<String, Object> props = Wire.with(Wire.config(100), "claimcheck.treshold.bytes", "10");
    assertThatThrownBy(() -> new Redeem.Value<SinkRecord>().configure(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.treshold.bytes");
    assertThatThrownBy(() -> new CheckIn.Value<SourceRecord>().configure(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.treshold.bytes");
  }

  /** A converter that refuses its settings with a message quoting every value it was given. */
  public static final class QuotingConverter
      extends org.apache.kafka.connect.converters.ByteArrayConverter {
    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
      throw new IllegalArgumentException("bad settings: " + configs);
    }
  }
}
