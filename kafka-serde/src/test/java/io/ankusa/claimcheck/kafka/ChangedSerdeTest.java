package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.kstream.internals.Change;
import org.apache.kafka.streams.kstream.internals.ChangedDeserializer;
import org.apache.kafka.streams.kstream.internals.ChangedSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Kafka Streams' own {@code Change} format around the claim-check serde (issue 15): a {@code
 * KTable#groupBy} repartition record is written by {@code ChangedSerializer}, which calls our
 * serializer for the new and then the old value with one {@code Headers} object, and read by {@code
 * ChangedDeserializer}, which hands each part to our deserializer with those headers. The marker
 * the one part left must never make the other unreadable.
 */
class ChangedSerdeTest {

  private static final int THRESHOLD = 100;
  private static final String TOPIC = "app-KTABLE-AGGREGATE-repartition";

  private final String store = "changed-" + UUID.randomUUID();
  private ClaimCheckSerializer<byte[]> serializer;
  private ClaimCheckDeserializer<byte[]> deserializer;

  @BeforeEach
  void open() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + store);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.threshold.bytes", THRESHOLD);
    serializer = new ClaimCheckSerializer<>();
    serializer.configure(m, false);
    deserializer = new ClaimCheckDeserializer<>();
    deserializer.configure(m, false);
  }

  @AfterEach
  void close() {
    serializer.close();
    deserializer.close();
    MemoryStores.forget(store);
  }

  /**
   * A value of a kind: null, small (inline), large (checked in), or small but starting with the ref
   * magic (an inline payload that looks like the start of a ref).
   */
  private static byte[] value(String kind, long seed) {
    byte[] b =
        switch (kind) {
          case "null" -> null;
          case "small" -> new byte[THRESHOLD / 3];
          case "large" -> new byte[THRESHOLD * 7];
          case "magic" -> new byte[THRESHOLD / 2];
          default -> throw new IllegalArgumentException(kind);
        };
    if (b != null) {
      new Random(seed).nextBytes(b);
      if (kind.equals("magic")) {
        System.arraycopy(RefCodec.MAGIC, 0, b, 0, RefCodec.MAGIC.length);
      } else {
        b[0] = 1; // never the magic by chance
      }
    }
    return b;
  }

  @ParameterizedTest(name = "new {0}, old {1}")
  @CsvSource({
    "small, large",
    "large, small",
    "large, large",
    "small, small",
    "null, large",
    "large, null",
    "null, small",
    "small, null",
    "magic, large",
    "large, magic",
    "magic, small",
    "small, magic",
    "magic, null",
    "null, magic"
  })
  void bothValuesOfAChangeRoundTripByteForByteThroughOneHeaders(String newKind, String oldKind) {
    byte[] newValue = value(newKind, 1);
    byte[] oldValue = value(oldKind, 2);
    Headers headers = new RecordHeaders();
    headers.add("trace-id", new byte[] {7}); // headers a Streams app forwards
    byte[] record;
    try (ChangedSerializer<byte[]> changed = new ChangedSerializer<>(serializer)) {
      record = changed.serialize(TOPIC, headers, new Change<>(newValue, oldValue));
    }
    try (ChangedDeserializer<byte[]> changed = new ChangedDeserializer<>(deserializer)) {
      Change<byte[]> read = changed.deserialize(TOPIC, headers, record);
      assertThat(read.newValue).as("new value").isEqualTo(newValue);
      assertThat(read.oldValue).as("old value").isEqualTo(oldValue);
    }
    assertThat(headers.lastHeader("trace-id").value()).containsExactly(7);
  }

  /**
   * Each part as a deserializer meets it alone (arrays and buffers), under the record's headers.
   */
  @ParameterizedTest(name = "{0} under the marker a large value left")
  @CsvSource({"small", "magic"})
  void aSmallValueUnderAMarkerALargeOneLeftIsInline(String kind) {
    Headers headers = new RecordHeaders();
    byte[] large = value("large", 3);
    byte[] ref = serializer.serialize(TOPIC, headers, large);
    assertThat(ClaimCheckHeaders.isMarked(headers, false)).isTrue();
    Headers stillMarked = new RecordHeaders(headers.toArray());
    byte[] small = value(kind, 4);
    byte[] written = serializer.serialize(TOPIC, new RecordHeaders(), small);
    assertThat(deserializer.deserialize(TOPIC, stillMarked, written)).isEqualTo(small);
    assertThat(deserializer.deserialize(TOPIC, stillMarked, ByteBuffer.wrap(written)))
        .isEqualTo(small);
    assertThat(deserializer.deserialize(TOPIC, stillMarked, ref)).isEqualTo(large);
  }
}
