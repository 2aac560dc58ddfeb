package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A secret planted under wrong or odd keys never shows in what the serializer, the deserializer or
 * the serde throw when configured (message, causes, suppressed).
 */
class PlantedSecretTest {

  private static final String SECRET = "pl4nted-S3CRET-" + UUID.randomUUID();

  static Stream<Map<String, Object>> planted() {
    List<Map<String, Object>> cases = new ArrayList<>();
    for (String key :
        List.of(
            "claimcheck.s3.secret.acces.key",
            "claimcheck.secret",
            "claimcheck.sasl.jaas.config",
            "claimcheck.store.5.s3.secret.access.key",
            "claimcheck.store.0.s3.secret.acces.key",
            "claimcheck.store.0.password",
            "claimcheck.converter.basic.auth.user.info",
            "claimcheck.value.serde.password")) {
      cases.add(with(key, SECRET));
    }
    cases.add(with("claimcheck.key.serde.secret", new Password(SECRET)));
    for (String uri : io.ankusa.claimcheck.config.PlantedSecretTest.storeUrisCarrying(SECRET)) {
      cases.add(with("claimcheck.stores", uri)); // every form a store URI may carry one in
    }
    Map<String, Object> endpoint = with("claimcheck.s3.endpoint", "http://u:" + SECRET + "@h:9");
    endpoint.put("claimcheck.stores", "s3://bucket-a");
    cases.add(endpoint);
    Map<String, Object> idOnly = with("claimcheck.s3.access.key.id", SECRET); // no secret with it
    idOnly.put("claimcheck.stores", "s3://bucket-a");
    cases.add(idOnly);
    return cases.stream();
  }

  private static Map<String, Object> with(String key, Object value) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "memory:planted-" + UUID.randomUUID());
    m.put("max.poll.interval.ms", "300000");
    m.put(key, value);
    return m;
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

  private static void refusedQuietly(
      Consumer<Map<String, Object>> configure, Map<String, Object> m) {
    assertThatThrownBy(() -> configure.accept(m))
        .isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(printed(e)).doesNotContain(SECRET));
  }

  @ParameterizedTest
  @MethodSource("planted")
  void theSerializerRefusesItQuietly(Map<String, Object> m) {
    try (ClaimCheckSerializer<byte[]> s = new ClaimCheckSerializer<>()) {
      refusedQuietly(c -> s.configure(c, false), m);
    }
  }

  @ParameterizedTest
  @MethodSource("planted")
  void theDeserializerRefusesItQuietly(Map<String, Object> m) {
    try (ClaimCheckDeserializer<byte[]> d = new ClaimCheckDeserializer<>()) {
      refusedQuietly(c -> d.configure(c, true), m);
    }
  }

  @ParameterizedTest
  @MethodSource("planted")
  void theSerdeRefusesItQuietly(Map<String, Object> m) {
    try (ClaimCheckSerde<byte[]> s = new ClaimCheckSerde<>()) {
      refusedQuietly(c -> s.configure(c, false), m);
    }
  }
}
