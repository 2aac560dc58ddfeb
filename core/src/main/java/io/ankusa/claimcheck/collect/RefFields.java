package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * The one ref-detection rule applied to a consumed record's key and value; stateless and
 * thread-safe.
 *
 * <p>A field carries a ref when its marker header is present or when its bytes are an intact ref
 * frame ({@link RefCodec#isRef}), with or without other headers.
 */
final class RefFields {

  /** The marker header of a value ref (a wire-format fact shared with the serde). */
  static final String VALUE_MARKER = "ankusa.claimcheck.value";

  /** The marker header of a key ref. */
  static final String KEY_MARKER = "ankusa.claimcheck.key";

  private RefFields() {}

  /** Hands the refs of {@code r}'s key and value to {@code visitor}. */
  static void visit(ConsumerRecord<byte[], byte[]> r, RefVisitor visitor) {
    field(r, r.key(), true, visitor);
    field(r, r.value(), false, visitor);
  }

  private static void field(
      ConsumerRecord<byte[], byte[]> r, byte[] data, boolean isKey, RefVisitor visitor) {
    if (data == null || !(marked(r.headers(), isKey) || RefCodec.isRef(data))) {
      return;
    }
    ClaimRef ref;
    try {
      ref = RefCodec.decode(data);
    } catch (MalformedRefException e) {
      visitor.malformed(r.topic(), r.partition(), r.offset(), isKey, e);
      return;
    }
    visitor.ref(r.topic(), r.partition(), r.offset(), isKey, ref);
  }

  private static boolean marked(Headers headers, boolean isKey) {
    return headers != null && headers.lastHeader(isKey ? KEY_MARKER : VALUE_MARKER) != null;
  }
}
