package io.ankusa.claimcheck.connect;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

/**
 * What a worker does between a source transform and Kafka, and between Kafka and a sink transform,
 * for a BYTES field under ByteArrayConverter: headers through the default SimpleHeaderConverter,
 * bytes untouched.
 */
final class Wire {

  static final String TOPIC = "t";
  private static final SimpleHeaderConverter HEADERS = new SimpleHeaderConverter();

  private Wire() {}

  /** A config with one fresh memory store and the given threshold. */
  static Map<String, Object> config(int threshold) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "memory:smt-" + UUID.randomUUID());
    m.put("claimcheck.threshold.bytes", String.valueOf(threshold));
    m.put("claimcheck.store.op.deadline.ms", "2000");
    m.put("claimcheck.read.deadline.ms", "2000");
    return m;
  }

  static Map<String, Object> with(Map<String, Object> base, String key, Object value) {
    Map<String, Object> m = new HashMap<>(base);
    m.put(key, value);
    return m;
  }

  static SourceRecord source(Schema keySchema, Object key, Schema valueSchema, Object value) {
    return new SourceRecord(
        Map.of("p", 0), Map.of("o", 0), TOPIC, 0, keySchema, key, valueSchema, value);
  }

  /** The Kafka headers a worker writes for {@code headers}. */
  static RecordHeaders toKafka(Iterable<Header> headers) {
    RecordHeaders out = new RecordHeaders();
    for (Header h : headers) {
      out.add(h.key(), HEADERS.fromConnectHeader(TOPIC, h.key(), h.schema(), h.value()));
    }
    return out;
  }

  /** The Connect headers a worker reads from {@code headers}. */
  static ConnectHeaders fromKafka(org.apache.kafka.common.header.Headers headers) {
    ConnectHeaders out = new ConnectHeaders();
    for (org.apache.kafka.common.header.Header h : headers) {
      SchemaAndValue sv = HEADERS.toConnectHeader(TOPIC, h.key(), h.value());
      out.add(h.key(), sv);
    }
    return out;
  }

  /** A sink record with the bytes and headers Kafka holds after {@code r} was produced. */
  static SinkRecord overKafka(SourceRecord r) {
    return sink((byte[]) r.key(), (byte[]) r.value(), fromKafka(toKafka(r.headers())));
  }

  /** A sink record as a worker with ByteArrayConverter for key and value hands it over. */
  static SinkRecord sink(byte[] key, byte[] value, Iterable<Header> headers) {
    return new SinkRecord(
        TOPIC,
        0,
        Schema.OPTIONAL_BYTES_SCHEMA,
        key,
        Schema.OPTIONAL_BYTES_SCHEMA,
        value,
        42L,
        1L,
        TimestampType.CREATE_TIME,
        headers);
  }

  static byte[] payload(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }
}
