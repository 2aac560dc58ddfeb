package io.ankusa.claimcheck.connect;

import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.Headers;

/** Copies of a record with its key or its value replaced; thread-safe (stateless). */
final class RecordFields {

  private RecordFields() {}

  /** {@code record} with key {@code value} of {@code schema} and {@code headers}. */
  static <R extends ConnectRecord<R>> R withKey(
      R record, Schema schema, Object value, Headers headers) {
    return record.newRecord(
        record.topic(),
        record.kafkaPartition(),
        schema,
        value,
        record.valueSchema(),
        record.value(),
        record.timestamp(),
        headers);
  }

  /** {@code record} with value {@code value} of {@code schema} and {@code headers}. */
  static <R extends ConnectRecord<R>> R withValue(
      R record, Schema schema, Object value, Headers headers) {
    return record.newRecord(
        record.topic(),
        record.kafkaPartition(),
        record.keySchema(),
        record.key(),
        schema,
        value,
        record.timestamp(),
        headers);
  }
}
