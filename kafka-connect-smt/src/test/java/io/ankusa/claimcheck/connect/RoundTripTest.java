package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.ref.RefCodec;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.StringConverter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** CheckIn on the source side, Kafka in between, Redeem on the sink side: the field comes back. */
class RoundTripTest {

  private static final int THRESHOLD = 1000;
  private final Map<String, Object> config = Wire.config(THRESHOLD);
  private final CheckIn.Value<SourceRecord> checkIn = new CheckIn.Value<>();
  private final Redeem.Value<SinkRecord> redeem = new Redeem.Value<>();

  @AfterEach
  void close() {
    checkIn.close();
    redeem.close();
  }

  private void configure(Map<String, Object> props) {
    checkIn.configure(props);
    redeem.configure(props);
  }

  @Test
  void bytesAroundTheThresholdComeBackIdenticalAndOnlyLargeOnesBecomeRefs() {
    configure(config);
    for (int size : new int[] {0, 1, THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, 300_000}) {
      byte[] value = Wire.payload(size, size);
      SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));

      boolean large = size >= THRESHOLD;
      assertThat(out.valueSchema()).isEqualTo(Schema.BYTES_SCHEMA);
      assertThat(out.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER) != null)
          .as("marker at %d bytes", size)
          .isEqualTo(large);
      if (large) {
        assertThat(RefCodec.isRef((byte[]) out.value())).isTrue();
        assertThat(((byte[]) out.value()).length).isLessThan(100);
      } else {
        assertThat((byte[]) out.value()).isEqualTo(value);
      }

      SinkRecord back = redeem.apply(Wire.overKafka(out));
      assertThat((byte[]) back.value()).as("%d bytes", size).isEqualTo(value);
      assertThat(back.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNull();
      assertThat(back.kafkaOffset()).isEqualTo(42L);
    }
  }

  @Test
  void stringsRoundTripThroughStringConverter() {
    configure(Wire.with(config, "claimcheck.converter", StringConverter.class.getName()));
    for (String s : List.of("small", "é".repeat(THRESHOLD))) {
      SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.STRING_SCHEMA, s));
      SinkRecord back = redeem.apply(Wire.overKafka(out));
      assertThat(back.value()).isEqualTo(s);
      assertThat(back.valueSchema().type()).isEqualTo(Schema.Type.STRING);
    }
  }

  @Test
  void schemalessJsonRoundTripsThroughJsonConverter() {
    Map<String, Object> json =
        Wire.with(
            Wire.with(
                config, "claimcheck.converter", "org.apache.kafka.connect.json.JsonConverter"),
            "claimcheck.converter.schemas.enable",
            "false");
    configure(json);
    Map<String, Object> doc = Map.of("name", "x".repeat(2 * THRESHOLD), "n", 7L);
    SourceRecord out = checkIn.apply(Wire.source(null, null, null, doc));
    assertThat(out.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNotNull();
    SinkRecord back = redeem.apply(Wire.overKafka(out));
    assertThat(back.value()).isEqualTo(doc);
    assertThat(back.valueSchema()).isNull();
  }

  @Test
  void structsWithSchemasRoundTripThroughJsonConverter() {
    configure(
        Wire.with(config, "claimcheck.converter", "org.apache.kafka.connect.json.JsonConverter"));
    Schema schema =
        SchemaBuilder.struct()
            .name("doc")
            .field("body", Schema.STRING_SCHEMA)
            .field("n", Schema.INT32_SCHEMA)
            .build();
    Struct doc = new Struct(schema).put("body", "y".repeat(3 * THRESHOLD)).put("n", 3);
    SourceRecord out = checkIn.apply(Wire.source(null, null, schema, doc));
    assertThat(RefCodec.isRef((byte[]) out.value())).isTrue();
    SinkRecord back = redeem.apply(Wire.overKafka(out));
    assertThat(back.value()).isEqualTo(doc);
    assertThat(back.valueSchema()).isEqualTo(schema);
  }

  @Test
  void tombstonesPassThroughBothWays() {
    configure(config);
    SourceRecord tombstone = Wire.source(null, null, Schema.OPTIONAL_BYTES_SCHEMA, null);
    tombstone.headers().addString(ClaimCheckHeaders.VALUE_MARKER, "1"); // stale
    SourceRecord out = checkIn.apply(tombstone);
    assertThat(out.value()).isNull();
    assertThat(out.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNull();

    SinkRecord back = redeem.apply(Wire.overKafka(out));
    assertThat(back.value()).isNull();
  }

  /** A small value that is itself a ref frame is checked in, never redeemed as one (issue 15). */
  @Test
  void aSmallValueThatStartsWithTheRefMagicIsCheckedInAndComesBackAsItIs() {
    configure(config);
    byte[] frame =
        RefCodec.encode(
            io.ankusa.claimcheck.ref.ClaimRef.of(
                io.ankusa.claimcheck.ref.Tenant.of("x"),
                new io.ankusa.claimcheck.ref.ClaimId(
                    io.ankusa.claimcheck.ref.PackId.parseHex("00000000000000ff"), 0),
                29,
                10,
                0x1234,
                io.ankusa.claimcheck.ref.Codec.NONE));
    SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, frame));
    assertThat((byte[]) out.value()).isNotEqualTo(frame);
    assertThat(out.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNotNull();
    assertThat((byte[]) redeem.apply(Wire.overKafka(out)).value()).isEqualTo(frame);
  }

  @Test
  void aStaleMarkerIsRemovedFromAnInlineValue() {
    configure(config);
    SourceRecord in = Wire.source(null, null, Schema.BYTES_SCHEMA, new byte[] {1, 2, 3});
    in.headers().addString(ClaimCheckHeaders.VALUE_MARKER, "1");
    in.headers().addString("other", "kept");
    SourceRecord out = checkIn.apply(in);
    assertThat(out.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNull();
    assertThat(out.headers().lastWithName("other").value()).isEqualTo("kept");
    assertThat(in.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER))
        .as("the input record is left alone")
        .isNotNull();
    assertThat((byte[]) redeem.apply(Wire.overKafka(out)).value()).containsExactly(1, 2, 3);
  }

  @Test
  void theKeyLeavesTheValueAloneAndTheValueTheKey() {
    configure(config);
    byte[] key = Wire.payload(THRESHOLD * 2, 1);
    byte[] value = Wire.payload(THRESHOLD * 2, 2);
    SourceRecord out =
        checkIn.apply(Wire.source(Schema.BYTES_SCHEMA, key, Schema.BYTES_SCHEMA, value));
    assertThat((byte[]) out.key()).isEqualTo(key);
    assertThat(out.headers().lastWithName(ClaimCheckHeaders.KEY_MARKER)).isNull();
    assertThat(RefCodec.isRef((byte[]) out.value())).isTrue();
  }

  @Test
  void aKeyAlwaysYieldsTheSameRefAndRedeemsBack() {
    CheckIn.Key<SourceRecord> keyIn = new CheckIn.Key<>();
    Redeem.Key<SinkRecord> keyBack = new Redeem.Key<>();
    keyIn.configure(config);
    keyBack.configure(config);
    try {
      byte[] key = Wire.payload(THRESHOLD + 10, 5);
      byte[] value = {9};
      SourceRecord a =
          keyIn.apply(Wire.source(Schema.BYTES_SCHEMA, key, Schema.BYTES_SCHEMA, value));
      SourceRecord b =
          keyIn.apply(Wire.source(Schema.BYTES_SCHEMA, key.clone(), Schema.BYTES_SCHEMA, value));
      assertThat(RefCodec.isRef((byte[]) a.key())).isTrue();
      assertThat((byte[]) b.key()).isEqualTo((byte[]) a.key());
      assertThat(a.headers().lastWithName(ClaimCheckHeaders.KEY_MARKER)).isNotNull();
      assertThat(a.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNull();
      assertThat((byte[]) a.value()).isEqualTo(value);

      SinkRecord back = keyBack.apply(Wire.overKafka(a));
      assertThat((byte[]) back.key()).isEqualTo(key);
      assertThat((byte[]) back.value()).isEqualTo(value);
    } finally {
      keyIn.close();
      keyBack.close();
    }
  }

  @Test
  void anUnmarkedIntactRefIsRedeemedWithOrWithoutOtherHeaders() {
    configure(config);
    byte[] value = Wire.payload(THRESHOLD, 3);
    SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));
    byte[] ref = (byte[]) out.value();

    SinkRecord bare = Wire.sink(null, ref, List.of());
    assertThat((byte[]) redeem.apply(bare).value()).isEqualTo(value);

    SinkRecord withHeaders = Wire.sink(null, ref, List.of());
    withHeaders.headers().addString("other", "x");
    assertThat((byte[]) redeem.apply(withHeaders).value())
        .as("decision 5: the marker or an intact frame, whatever other headers there are")
        .isEqualTo(value);

    byte[] damaged = ref.clone();
    damaged[damaged.length - 1] ^= 1; // no longer an intact frame, and unmarked: inline
    SinkRecord inline = Wire.sink(null, damaged, List.of());
    inline.headers().addString("other", "x");
    assertThat((byte[]) redeem.apply(inline).value()).isEqualTo(damaged);
  }
}
