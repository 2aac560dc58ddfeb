package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimCheckConverter} writes what the serializer and the transforms read, and reads what
 * they write (memory stores), with typed failures; the worker-level proof is {@code
 * ClaimCheckConverterIT}.
 */
class ClaimCheckConverterTest {

  private static final int THRESHOLD = 1000;
  private final Map<String, Object> config = Wire.config(THRESHOLD);

  private static ClaimCheckConverter converter(Map<String, Object> config, boolean isKey) {
    ClaimCheckConverter c = new ClaimCheckConverter();
    c.configure(config, isKey);
    return c;
  }

  @Test
  void whatTheConverterWritesTheDeserializerReadsMarkedOrNot() {
    byte[] big = Wire.payload(THRESHOLD, 1);
    byte[] small = Wire.payload(THRESHOLD - 1, 2);
    try (ClaimCheckConverter c = converter(config, false);
        ClaimCheckDeserializer<byte[]> d =
            new ClaimCheckDeserializer<>(new ByteArrayDeserializer())) {
      d.configure(config, false);
      for (byte[] v : List.of(big, small)) {
        RecordHeaders headers = new RecordHeaders();
        byte[] wire = c.fromConnectData(Wire.TOPIC, headers, Schema.BYTES_SCHEMA, v);
        assertThat(RefCodec.isRef(wire)).isEqualTo(v == big);
        assertThat(headers.lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null).isEqualTo(v == big);
        assertThat(d.deserialize(Wire.TOPIC, headers, wire)).isEqualTo(v);
      }
      byte[] unmarked = c.fromConnectData(Wire.TOPIC, Schema.BYTES_SCHEMA, big); // no headers
      assertThat(d.deserialize(Wire.TOPIC, unmarked)).isEqualTo(big);
    }
  }

  @Test
  void whatTheSerializerWritesTheConverterReadsMarkedOrNot() {
    String big = "ß".repeat(THRESHOLD);
    Map<String, Object> strings =
        Wire.with(
            config,
            ConverterConfig.INNER,
            org.apache.kafka.connect.storage.StringConverter.class.getName());
    try (ClaimCheckSerializer<String> s = new ClaimCheckSerializer<>(new StringSerializer());
        ClaimCheckConverter c = converter(strings, false)) {
      s.configure(config, false);
      for (String v : List.of("small", big)) {
        RecordHeaders headers = new RecordHeaders();
        byte[] wire = s.serialize(Wire.TOPIC, headers, v);
        assertThat(RefCodec.isRef(wire)).isEqualTo(v == big);
        SchemaAndValue back = c.toConnectData(Wire.TOPIC, headers, wire);
        assertThat(back.value()).isEqualTo(v);
      }
      assertThat(c.toConnectData(Wire.TOPIC, s.serialize(Wire.TOPIC, big)).value())
          .as("an unmarked ref, by its frame")
          .isEqualTo(big);
    }
  }

  @Test
  void aStructThroughAJsonInnerIsTheJsonTextAStringDeserializerReads() {
    Schema schema = SchemaBuilder.struct().field("body", Schema.STRING_SCHEMA).build();
    Struct doc = new Struct(schema).put("body", "z".repeat(2 * THRESHOLD));
    Map<String, Object> json =
        Wire.with(config, ConverterConfig.INNER, JsonConverter.class.getName());
    json.put(ConverterConfig.INNER_PREFIX + "schemas.enable", "true");
    try (ClaimCheckConverter c = converter(json, false);
        ClaimCheckDeserializer<String> d = new ClaimCheckDeserializer<>(new StringDeserializer());
        JsonConverter plain = new JsonConverter()) {
      d.configure(config, false);
      plain.configure(Map.of("schemas.enable", "true"), false);
      RecordHeaders headers = new RecordHeaders();
      byte[] wire = c.fromConnectData(Wire.TOPIC, headers, schema, doc);
      assertThat(RefCodec.isRef(wire)).isTrue();
      String text = d.deserialize(Wire.TOPIC, headers, wire);
      assertThat(text)
          .isEqualTo(
              new String(plain.fromConnectData(Wire.TOPIC, schema, doc), StandardCharsets.UTF_8));
      assertThat(c.toConnectData(Wire.TOPIC, headers, wire))
          .isEqualTo(new SchemaAndValue(schema, doc));
    }
  }

  @Test
  void keysGetTheSerializersContentDerivedRef() {
    byte[] key = Wire.payload(THRESHOLD + 1, 3);
    Map<String, Object> keys = Wire.with(config, "claimcheck.keys.enabled", "true");
    try (ClaimCheckConverter c = converter(config, true);
        ClaimCheckSerializer<byte[]> s = new ClaimCheckSerializer<>(new ByteArraySerializer())) {
      s.configure(keys, true);
      RecordHeaders mine = new RecordHeaders();
      RecordHeaders theirs = new RecordHeaders();
      assertThat(c.fromConnectData(Wire.TOPIC, mine, Schema.BYTES_SCHEMA, key))
          .isEqualTo(s.serialize(Wire.TOPIC, theirs, key));
      assertThat(mine.lastHeader(ClaimCheckHeaders.KEY_MARKER).value())
          .isEqualTo(theirs.lastHeader(ClaimCheckHeaders.KEY_MARKER).value());
      assertThat(
              c.toConnectData(
                      Wire.TOPIC,
                      mine,
                      RefCodec.encode(RefCodec.decode(s.serialize(Wire.TOPIC, key))))
                  .value())
          .isEqualTo(key);
    }
  }

  @Test
  void theTransformsAndTheConverterReadEachOthersRecords() {
    byte[] value = Wire.payload(5 * THRESHOLD, 4);
    try (ClaimCheckConverter c = converter(config, false);
        CheckIn.Value<SourceRecord> in = new CheckIn.Value<>();
        Redeem.Value<SinkRecord> out = new Redeem.Value<>()) {
      in.configure(config);
      out.configure(config);
      SourceRecord transformed = in.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));
      RecordHeaders headers = Wire.toKafka(transformed.headers());
      assertThat(c.toConnectData(Wire.TOPIC, headers, (byte[]) transformed.value()).value())
          .isEqualTo(value);

      RecordHeaders written = new RecordHeaders();
      byte[] wire = c.fromConnectData(Wire.TOPIC, written, Schema.BYTES_SCHEMA, value);
      assertThat((byte[]) out.apply(Wire.sink(null, wire, Wire.fromKafka(written))).value())
          .isEqualTo(value);
    }
  }

  @Test
  void aSmallValueRemovesAStaleMarkerAndARefLikeOneIsCheckedIn() {
    try (ClaimCheckConverter c = converter(config, false)) {
      RecordHeaders headers = new RecordHeaders();
      headers.add(ClaimCheckHeaders.VALUE_MARKER, "1".getBytes(StandardCharsets.US_ASCII));
      byte[] inline = c.fromConnectData(Wire.TOPIC, headers, Schema.BYTES_SCHEMA, new byte[] {7});
      assertThat(inline).containsExactly(7);
      assertThat(headers.lastHeader(ClaimCheckHeaders.VALUE_MARKER)).isNull();

      byte[] refLike = {0x00, (byte) 0xF7, (byte) 0xAC, 0x6B, 1};
      byte[] wire = c.fromConnectData(Wire.TOPIC, headers, Schema.BYTES_SCHEMA, refLike);
      assertThat(RefCodec.isRef(wire)).isTrue();
      assertThat(c.toConnectData(Wire.TOPIC, headers, wire).value()).isEqualTo(refLike);
      assertThat(c.fromConnectData(Wire.TOPIC, headers, Schema.OPTIONAL_BYTES_SCHEMA, null))
          .isNull();
    }
  }

  @Test
  void aStoreThatCannotAnswerIsRetriableAndAGoneClaimIsBadData() {
    String name = "conv-" + UUID.randomUUID();
    Map<String, Object> faulty = Wire.with(config, "claimcheck.stores", "faulty:" + name);
    MemoryStore store = MemoryStores.named(name);
    try (ClaimCheckConverter c = converter(faulty, false)) {
      byte[] value = Wire.payload(2 * THRESHOLD, 5);
      store.failAlways(MemoryStore.Op.PUT, StoreException.Kind.UNAVAILABLE);
      assertThatThrownBy(
              () -> c.fromConnectData(Wire.TOPIC, new RecordHeaders(), Schema.BYTES_SCHEMA, value))
          .isExactlyInstanceOf(RetriableException.class)
          .hasMessageContaining("UNAVAILABLE")
          .hasMessageContaining("the value of a record for topic t");
      store.clearFaults();
      RecordHeaders headers = new RecordHeaders();
      byte[] wire = c.fromConnectData(Wire.TOPIC, headers, Schema.BYTES_SCHEMA, value);

      store.failAlways(MemoryStore.Op.GET, StoreException.Kind.UNAVAILABLE);
      assertThatThrownBy(() -> c.toConnectData(Wire.TOPIC, headers, wire))
          .isExactlyInstanceOf(RetriableException.class)
          .hasMessageContaining("UNAVAILABLE");
      store.clearFaults();
      assertThat(c.toConnectData(Wire.TOPIC, headers, wire).value()).isEqualTo(value);

      byte[] never =
          c.fromConnectData(Wire.TOPIC, headers, Schema.BYTES_SCHEMA, Wire.payload(THRESHOLD, 6));
      store.clearObjects(); // (the first claim is in the cache now: a second one, never read)
      assertThatThrownBy(() -> c.toConnectData(Wire.TOPIC, headers, never))
          .isExactlyInstanceOf(DataException.class)
          .hasMessageContaining("NOT_FOUND");
    }
  }

  @Test
  void aMarkedValueThatStartsWithTheMagicButIsNotARefIsBadData() {
    try (ClaimCheckConverter c = converter(config, false)) {
      RecordHeaders headers = new RecordHeaders();
      headers.add(ClaimCheckHeaders.VALUE_MARKER, "1".getBytes(StandardCharsets.US_ASCII));
      byte[] damaged = {0x00, (byte) 0xF7, (byte) 0xAC, 0x6B, 1, 2, 3};
      assertThatThrownBy(() -> c.toConnectData(Wire.TOPIC, headers, damaged))
          .isExactlyInstanceOf(DataException.class)
          .hasMessageContaining("REFUSED");
    }
  }

  @Test
  void badConfigurationNamesTheKey() {
    assertThatThrownBy(() -> converter(Wire.with(config, "claimcheck.converter.innr", "x"), false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.converter.innr");
    assertThatThrownBy(
            () ->
                converter(
                    Wire.with(config, ConverterConfig.INNER, ClaimCheckConverter.class.getName()),
                    false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ConverterConfig.INNER);
    assertThatThrownBy(
            () ->
                converter(Wire.with(config, ConverterConfig.INNER, String.class.getName()), false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not a org.apache.kafka.connect.storage.Converter");
  }
}
