package io.ankusa.claimcheck.internal;

import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import java.nio.ByteBuffer;

/**
 * The one rule, for every Kafka surface, that tells a record field carrying a claim-check ref
 * from an inline payload, and the one way such a field is decoded; stateless and thread-safe.
 *
 * <p><b>Detection.</b> A field carries a ref when the record has the field's marker header
 * ({@link #VALUE_MARKER} or {@link #KEY_MARKER}), or when its bytes are exactly one intact ref
 * frame ({@link RefCodec#isRef}: magic, declared length and CRC32) — with or without other
 * headers, and whether or not headers were passed at all. A producer that dropped the header (a
 * mirror, a tool) thus still has its refs redeemed, and an inline payload is never taken for one
 * unless it is a byte-exact ref frame.
 *
 * <p><b>Decoding.</b> A field that carries a ref but does not decode is {@link Reason#REFUSED},
 * except a ref written by a newer library (an unknown version or codec): that is {@link
 * Reason#UNAVAILABLE} with a message saying "upgrade the reader", so a rolling upgrade never
 * skips or dead-letters a record.
 */
public final class RefFields {

  /** The header marking a record whose value is a claim-check ref (a wire-format fact). */
  public static final String VALUE_MARKER = "ankusa.claimcheck.value";

  /** The header marking a record whose key is a claim-check ref (a wire-format fact). */
  public static final String KEY_MARKER = "ankusa.claimcheck.key";

  private RefFields() {}

  /** Returns the marker header name for a key ({@code isKey}) or a value. */
  public static String marker(boolean isKey) {
    return isKey ? KEY_MARKER : VALUE_MARKER;
  }

  /**
   * Whether a field with bytes {@code data} carries a ref, given whether its record has the
   * field's marker header ({@code marked}); false for a null field.
   */
  public static boolean carriesRef(boolean marked, byte[] data) {
    return data != null && (marked || RefCodec.isRef(data));
  }

  /**
   * As {@link #carriesRef(boolean, byte[])} for a buffer (its remaining bytes, position
   * unchanged). An unmarked buffer longer than any ref frame is answered without a copy.
   */
  public static boolean carriesRef(boolean marked, ByteBuffer data) {
    if (data == null) {
      return false;
    }
    if (marked) {
      return true;
    }
    int n = data.remaining();
    if (n < RefCodec.MIN_LENGTH || n > RefCodec.MAX_LENGTH) {
      return false;
    }
    byte[] frame = new byte[n];
    data.duplicate().get(frame);
    return RefCodec.isRef(frame);
  }

  /**
   * Decodes the ref of a field that {@link #carriesRef carries one}; {@code isKey} names the
   * field in messages. Throws {@link ClaimCheckFailure}: {@code REFUSED} when the bytes are not a
   * readable ref, {@code UNAVAILABLE} ("upgrade the reader") when they are a ref of a version or
   * codec this library does not know.
   */
  public static ClaimRef decode(byte[] data, boolean isKey) {
    String field = isKey ? "key" : "value";
    try {
      return RefCodec.decode(data);
    } catch (MalformedRefException e) {
      if (e.needsNewerReader()) { // an unknown ref version or codec id
        throw new ClaimCheckFailure(Reason.UNAVAILABLE, "the " + field + " is a claim-check ref"
            + " written by a newer library: upgrade the reader (" + e.getMessage() + ")", e);
      }
      throw new ClaimCheckFailure(Reason.REFUSED, "the " + field
          + " is marked as a claim-check ref (or framed as one) but is not a readable ref: "
          + e.getMessage(), e);
    }
  }
}
