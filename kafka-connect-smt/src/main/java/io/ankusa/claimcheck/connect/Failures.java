package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.ClaimCheckFailure;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Maps claim-check failures onto the exceptions a Connect worker acts on; stateless and
 * thread-safe.
 *
 * <p>{@code UNAVAILABLE} becomes a {@link RetriableException}: the worker retries the record
 * (within {@code errors.retry.timeout}) and never treats it as bad data. {@code NOT_FOUND}, {@code
 * CORRUPT} and {@code REFUSED} become {@link DataException}s, so {@code errors.tolerance} and the
 * dead-letter queue decide what happens to the record.
 */
final class Failures {

  private Failures() {}

  /** The Connect form of {@code f}, its message naming the claim and the record. */
  static ConnectException toConnect(ClaimCheckFailure f, ConnectRecord<?> record, String field) {
    return toConnect(f, where(record, field));
  }

  /** The Connect form of {@code f}, its message naming the claim and {@code where} it was met. */
  static ConnectException toConnect(ClaimCheckFailure f, String where) {
    String message = f.getMessage() + " (" + where + ")";
    return f.isRetriable() ? new RetriableException(message, f) : new DataException(message, f);
  }

  /** Names {@code field} of {@code record}: "the value of a record for topic t partition 0 ...". */
  static String where(ConnectRecord<?> record, String field) {
    return "the " + field + " of " + describe(record);
  }

  /** A retriable failure of {@code field} of {@code record}: the claim may still be readable. */
  static RetriableException unavailable(
      String why, ConnectRecord<?> record, String field, Throwable cause) {
    return new RetriableException(
        ClaimCheckFailure.Reason.UNAVAILABLE
            + ": "
            + why
            + " (the "
            + field
            + " of "
            + describe(record)
            + ")",
        cause);
  }

  /** Names a record by topic, partition and, for a sink record, offset. */
  static String describe(ConnectRecord<?> record) {
    StringBuilder b = new StringBuilder("a record for topic ").append(record.topic());
    if (record.kafkaPartition() != null) {
      b.append(" partition ").append(record.kafkaPartition());
    }
    if (record instanceof SinkRecord s) {
      b.append(" offset ").append(s.kafkaOffset());
    }
    return b.toString();
  }
}
