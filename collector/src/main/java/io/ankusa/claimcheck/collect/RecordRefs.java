package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Hands every ref a consumed record carries to a {@link RefVisitor}: every intact ref frame at any
 * offset of its key, its value and each header value ({@link RefFrames}); stateless and
 * thread-safe.
 *
 * <p>Conservative by design: a ref inside another format (a Streams {@code Change}, a windowed key,
 * a join wrapper, a composite serde) is found as well as a whole-field one. A field is reported
 * malformed only when its marker header is set, its bytes start with the ref magic and they are not
 * an intact frame (a damaged ref); a marked field that does not start with the magic is inline
 * bytes (the marker is a hint, the bytes decide). An intact frame that does not decode (a newer
 * library's version) is reported malformed with that reason, never skipped.
 */
final class RecordRefs {

  private RecordRefs() {}

  /** Hands the refs of {@code r}'s key, value and header values to {@code visitor}. */
  static void visit(ConsumerRecord<byte[], byte[]> r, RefVisitor visitor) {
    Headers headers = r.headers();
    field(r, r.key(), RefVisitor.KEY, marked(headers, true), visitor);
    field(r, r.value(), RefVisitor.VALUE, marked(headers, false), visitor);
    if (headers != null) {
      for (Header h : headers) {
        byte[] v = h.value();
        if (v != null && v.length >= RefCodec.MIN_LENGTH) {
          field(r, v, null, false, visitor, h.key());
        }
      }
    }
  }

  private static void field(
      ConsumerRecord<byte[], byte[]> r,
      byte[] data,
      String field,
      boolean marked,
      RefVisitor visitor) {
    if (data != null) {
      field(r, data, field, marked, visitor, null);
    }
  }

  /** {@code field} is the field's name, or null for the header named {@code header}. */
  private static void field(
      ConsumerRecord<byte[], byte[]> r,
      byte[] data,
      String field,
      boolean marked,
      RefVisitor visitor,
      String header) {
    boolean atStart = false;
    for (int at = RefFrames.next(data, 0); at >= 0; at = RefFrames.next(data, at + 1)) {
      atStart |= at == 0;
      String name = field != null ? field : RefVisitor.header(header);
      int n = RefFrames.length(data, at);
      byte[] frame = at == 0 && n == data.length ? data : Arrays.copyOfRange(data, at, at + n);
      ClaimRef ref;
      try {
        ref = RefCodec.decode(frame);
      } catch (MalformedRefException e) {
        visitor.malformed(r.topic(), r.partition(), r.offset(), name, e);
        continue;
      }
      visitor.ref(r.topic(), r.partition(), r.offset(), name, ref);
    }
    if (marked && !atStart && RefFrames.startsWithMagic(data)) {
      try {
        RefCodec.decode(data); // not an intact frame: says why
        throw new IllegalStateException("a ref frame the scan did not find decodes");
      } catch (MalformedRefException e) {
        visitor.malformed(r.topic(), r.partition(), r.offset(), field, e);
      }
    }
  }

  private static boolean marked(Headers headers, boolean isKey) {
    return headers != null && headers.lastHeader(RefFields.marker(isKey)) != null;
  }
}
