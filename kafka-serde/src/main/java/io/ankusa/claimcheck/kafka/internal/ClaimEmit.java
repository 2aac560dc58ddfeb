package io.ankusa.claimcheck.kafka.internal;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import org.apache.kafka.common.header.Headers;

/**
 * What a serialized field becomes once the claim check decided about it — the bytes put in the
 * record and the marker header beside them — shared by {@code ClaimCheckSerializer} and {@code
 * ClaimCheckProducer} so both emit the same records; stateless and thread-safe.
 */
public final class ClaimEmit {

  private ClaimEmit() {}

  /**
   * Whether {@code bytes} (a serialized key when {@code isKey}) are checked in: not null, for a key
   * only when {@code claimKeys}, and at least {@code threshold} long or starting with the ref
   * magic.
   *
   * <p>A value that starts with the magic is checked in whatever its size, so every field this
   * library emits that starts with the magic is a ref: a marker another part of the same record
   * left (Kafka Streams serializes a {@code Change}'s new and old value with one {@code Headers})
   * can then never make an inline value look like a damaged ref to a reader.
   */
  public static boolean checksIn(byte[] bytes, int threshold, boolean isKey, boolean claimKeys) {
    return bytes != null
        && (!isKey || claimKeys)
        && (bytes.length >= threshold || RefFields.startsWithMagic(bytes));
  }

  /**
   * Returns {@code bytes} untouched, removing a marker from {@code headers} (if any): the marker
   * says the last field this library wrote with these headers was a ref (see {@code
   * ClaimCheckHeaders}).
   */
  public static byte[] inline(Headers headers, boolean isKey, byte[] bytes) {
    if (headers != null) {
      Markers.unmark(headers, isKey);
    }
    return bytes;
  }

  /** Returns the encoded {@code ref}, marking {@code headers} (if any) as carrying one. */
  public static byte[] ref(Headers headers, boolean isKey, ClaimRef ref) {
    if (headers != null) {
      Markers.mark(headers, isKey, ref.version());
    }
    return RefCodec.encode(ref);
  }
}
