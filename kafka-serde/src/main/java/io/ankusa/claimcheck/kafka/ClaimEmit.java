package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import org.apache.kafka.common.header.Headers;

/**
 * What a serialized field becomes once the claim check decided about it — the bytes put in the
 * record and the marker header beside them — shared by {@link ClaimCheckSerializer} and {@link
 * ClaimCheckProducer} so both emit the same records; stateless and thread-safe.
 */
final class ClaimEmit {

  private ClaimEmit() {}

  /**
   * Whether {@code bytes} (a serialized key when {@code isKey}) are checked in: not null, at least
   * {@code threshold} long, and for a key only when {@code claimKeys}.
   */
  static boolean checksIn(byte[] bytes, int threshold, boolean isKey, boolean claimKeys) {
    return bytes != null && bytes.length >= threshold && (!isKey || claimKeys);
  }

  /** Returns {@code bytes} untouched, removing a stale marker from {@code headers} (if any). */
  static byte[] inline(Headers headers, boolean isKey, byte[] bytes) {
    if (headers != null) {
      ClaimCheckHeaders.unmark(headers, isKey);
    }
    return bytes;
  }

  /** Returns the encoded {@code ref}, marking {@code headers} (if any) as carrying one. */
  static byte[] ref(Headers headers, boolean isKey, ClaimRef ref) {
    if (headers != null) {
      ClaimCheckHeaders.mark(headers, isKey, ref.version());
    }
    return RefCodec.encode(ref);
  }
}
