package io.ankusa.claimcheck.kafka.internal;

import io.ankusa.claimcheck.RefFields;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;

/**
 * The marker header on a Kafka client's {@link Headers}: set, removed, read, and with the field's
 * bytes, whether the field carries a ref (core's {@link RefFields} rule); stateless and
 * thread-safe. {@code ClaimCheckHeaders} documents the marker's meaning to users.
 */
public final class Markers {

  private Markers() {}

  /** Sets the marker (replacing any stale one) for a ref of {@code refVersion} (1..9). */
  public static void mark(Headers headers, boolean isKey, int refVersion) {
    byte[] value = RefFields.markerValue(refVersion).getBytes(StandardCharsets.US_ASCII);
    headers.remove(RefFields.marker(isKey));
    headers.add(RefFields.marker(isKey), value);
  }

  /**
   * Removes a stale marker; headers without one are only read, never written (so read-only headers
   * without a marker are fine).
   */
  public static void unmark(Headers headers, boolean isKey) {
    String marker = RefFields.marker(isKey);
    if (headers.lastHeader(marker) != null) { // a scan without the iterator remove() allocates
      headers.remove(marker);
    }
  }

  /** Whether {@code headers} carry the marker; false for null headers. */
  public static boolean isMarked(Headers headers, boolean isKey) {
    return headers != null && headers.lastHeader(RefFields.marker(isKey)) != null;
  }

  /**
   * Whether {@code data} is to be redeemed: it starts with the ref magic and is marked or an intact
   * ref frame; a field without the magic is answered without a header lookup.
   */
  public static boolean carriesRef(Headers headers, byte[] data, boolean isKey) {
    return data != null
        && RefFields.startsWithMagic(data)
        && RefFields.carriesRef(isMarked(headers, isKey), data);
  }

  /** As {@link #carriesRef(Headers, byte[], boolean)} for a buffer's remaining bytes; no copy. */
  public static boolean carriesRef(Headers headers, ByteBuffer data, boolean isKey) {
    return data != null
        && RefFields.startsWithMagic(data)
        && RefFields.carriesRef(isMarked(headers, isKey), data);
  }
}
