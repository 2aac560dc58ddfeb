package io.ankusa.claimcheck.internal.collect;

import io.ankusa.claimcheck.internal.RefFields;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * Applies core's one ref-detection rule ({@link RefFields#carriesRef}) to a consumed record's key
 * and value; stateless and thread-safe.
 */
final class RecordRefs {

  private RecordRefs() {}

  /** Hands the refs of {@code r}'s key and value to {@code visitor}. */
  static void visit(ConsumerRecord<byte[], byte[]> r, RefVisitor visitor) {
    field(r, r.key(), true, visitor);
    field(r, r.value(), false, visitor);
  }

  private static void field(
      ConsumerRecord<byte[], byte[]> r, byte[] data, boolean isKey, RefVisitor visitor) {
    if (!RefFields.carriesRef(marked(r.headers(), isKey), data)) {
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
    return headers != null && headers.lastHeader(RefFields.marker(isKey)) != null;
  }
}
