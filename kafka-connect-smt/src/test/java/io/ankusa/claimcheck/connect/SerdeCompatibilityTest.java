package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.ref.RefCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.StringConverter;
import org.junit.jupiter.api.Test;

/**
 * The main promise: what CheckIn writes, ClaimCheckDeserializer reads, and what
 * ClaimCheckSerializer writes, Redeem reads — same stored bytes, same refs, same marker.
 */
class SerdeCompatibilityTest {

  private static final int THRESHOLD = 1000;
  private final Map<String, Object> config = Wire.config(THRESHOLD);

  @Test
  void stringsCheckedInByConnectAreReadByTheDeserializerWithAStringInner() {
    String big = "ü".repeat(THRESHOLD);
    try (CheckIn.Value<SourceRecord> t = new CheckIn.Value<>();
        ClaimCheckDeserializer<String> d = new ClaimCheckDeserializer<>(new StringDeserializer())) {
      t.configure(Wire.with(config, "claimcheck.converter", StringConverter.class.getName()));
      d.configure(config, false);
      for (String s : List.of("small", big)) {
        SourceRecord out = t.apply(Wire.source(null, null, Schema.STRING_SCHEMA, s));
        RecordHeaders headers = Wire.toKafka(out.headers());
        assertThat(headers.lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null).isEqualTo(s == big);
        assertThat(d.deserialize(Wire.TOPIC, headers, (byte[]) out.value())).isEqualTo(s);
        assertThat(d.deserialize(Wire.TOPIC, (byte[]) out.value()))
            .as("without headers, by the ref frame")
            .isEqualTo(s);
      }
    }
  }

  @Test
  void schemalessJsonCheckedInByConnectIsTheJsonTextTheDeserializerReads() {
    Map<String, Object> doc = Map.of("body", "z".repeat(2 * THRESHOLD));
    try (CheckIn.Value<SourceRecord> t = new CheckIn.Value<>();
        ClaimCheckDeserializer<String> d = new ClaimCheckDeserializer<>(new StringDeserializer());
        JsonConverter json = new JsonConverter()) {
      Map<String, Object> props =
          Wire.with(config, "claimcheck.converter", JsonConverter.class.getName());
      props.put("claimcheck.converter.schemas.enable", "false");
      t.configure(props);
      d.configure(config, false);
      json.configure(Map.of("schemas.enable", "false"), false);

      SourceRecord out = t.apply(Wire.source(null, null, null, doc));
      String read = d.deserialize(Wire.TOPIC, Wire.toKafka(out.headers()), (byte[]) out.value());
      assertThat(read).isEqualTo("{\"body\":\"" + "z".repeat(2 * THRESHOLD) + "\"}");
      assertThat(json.toConnectData(Wire.TOPIC, read.getBytes(StandardCharsets.UTF_8)).value())
          .isEqualTo(doc);
    }
  }

  @Test
  void bytesCheckedInByConnectAreByteIdenticalToTheSerializersRef() {
    byte[] value = Wire.payload(5000, 8);
    try (CheckIn.Value<SourceRecord> t = new CheckIn.Value<>();
        ClaimCheckDeserializer<byte[]> d =
            new ClaimCheckDeserializer<>(new ByteArrayDeserializer())) {
      t.configure(config);
      d.configure(config, false);
      SourceRecord out = t.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));
      assertThat(d.deserialize(Wire.TOPIC, Wire.toKafka(out.headers()), (byte[]) out.value()))
          .isEqualTo(value);
    }
  }

  @Test
  void keysCheckedInByConnectGetTheSerializersRef() {
    byte[] key = Wire.payload(THRESHOLD + 1, 9);
    Map<String, Object> keys = Wire.with(config, "claimcheck.keys.enabled", "true");
    try (CheckIn.Key<SourceRecord> t = new CheckIn.Key<>();
        ClaimCheckSerializer<byte[]> s = new ClaimCheckSerializer<>(new ByteArraySerializer());
        ClaimCheckDeserializer<byte[]> d =
            new ClaimCheckDeserializer<>(new ByteArrayDeserializer())) {
      t.configure(config);
      s.configure(keys, true);
      d.configure(keys, true);
      SourceRecord out = t.apply(Wire.source(Schema.BYTES_SCHEMA, key, null, null));
      RecordHeaders serHeaders = new RecordHeaders();
      byte[] serRef = s.serialize(Wire.TOPIC, serHeaders, key);
      assertThat((byte[]) out.key()).as("content-derived: one key, one ref").isEqualTo(serRef);
      RecordHeaders headers = Wire.toKafka(out.headers());
      assertThat(headers.lastHeader(ClaimCheckHeaders.KEY_MARKER).value())
          .isEqualTo(serHeaders.lastHeader(ClaimCheckHeaders.KEY_MARKER).value());
      assertThat(d.deserialize(Wire.TOPIC, headers, (byte[]) out.key())).isEqualTo(key);
    }
  }

  @Test
  void stringsWrittenByTheSerializerAreRedeemedByConnect() {
    String big = "ß".repeat(THRESHOLD);
    try (ClaimCheckSerializer<String> s = new ClaimCheckSerializer<>(new StringSerializer());
        Redeem.Value<SinkRecord> t = new Redeem.Value<>()) {
      s.configure(config, false);
      t.configure(Wire.with(config, "claimcheck.converter", StringConverter.class.getName()));
      for (String v : List.of("small", big)) {
        RecordHeaders headers = new RecordHeaders();
        byte[] wire = s.serialize(Wire.TOPIC, headers, v);
        assertThat(RefCodec.isRef(wire)).isEqualTo(v == big);
        SinkRecord back = t.apply(Wire.sink(null, wire, Wire.fromKafka(headers)));
        assertThat(back.value()).isEqualTo(v);
        assertThat(back.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNull();
      }
      byte[] unmarked = s.serialize(Wire.TOPIC, big); // no headers: an unmarked ref
      assertThat(t.apply(Wire.sink(null, unmarked, List.of())).value()).isEqualTo(big);
    }
  }

  @Test
  void bytesAndKeysWrittenByTheSerializerAreRedeemedByConnect() {
    byte[] key = Wire.payload(THRESHOLD * 3, 10);
    byte[] value = Wire.payload(THRESHOLD * 300, 11);
    Map<String, Object> keys = Wire.with(config, "claimcheck.keys.enabled", "true");
    try (ClaimCheckSerializer<byte[]> ks = new ClaimCheckSerializer<>(new ByteArraySerializer());
        ClaimCheckSerializer<byte[]> vs = new ClaimCheckSerializer<>(new ByteArraySerializer());
        Redeem.Key<SinkRecord> rk = new Redeem.Key<>();
        Redeem.Value<SinkRecord> rv = new Redeem.Value<>()) {
      ks.configure(keys, true);
      vs.configure(config, false);
      rk.configure(config);
      rv.configure(config);
      RecordHeaders headers = new RecordHeaders();
      byte[] keyRef = ks.serialize(Wire.TOPIC, headers, key);
      byte[] valueRef = vs.serialize(Wire.TOPIC, headers, value);
      SinkRecord back = rv.apply(rk.apply(Wire.sink(keyRef, valueRef, Wire.fromKafka(headers))));
      assertThat((byte[]) back.key()).isEqualTo(key);
      assertThat((byte[]) back.value()).isEqualTo(value);
      assertThat(back.headers().isEmpty()).isTrue();
    }
  }
}
