package io.ankusa.claimcheck;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import java.nio.ByteBuffer;

/**
 * The one rule, for every Kafka surface, that tells a record field carrying a claim-check ref from
 * an inline payload, and the one way such a field is decoded; stateless and thread-safe.
 *
 * <p><b>Detection: the bytes decide.</b> A field carries a ref only when its bytes start with
 * {@link RefCodec#MAGIC}; a field that does not is inline, marked or not. A field that starts with
 * the magic carries a ref when the record has the field's marker header ({@link #VALUE_MARKER} or
 * {@link #KEY_MARKER}), or when its bytes are exactly one intact ref frame ({@link RefCodec#isRef}:
 * magic, declared length and CRC32) — with or without other headers, and whether or not headers
 * were passed at all. So a producer that dropped the header (a mirror, a tool) still has its refs
 * redeemed; a marker that does not describe these bytes (Kafka Streams' {@code ChangedSerializer}
 * and foreign-key join wrappers call a serializer several times with one {@code Headers} object; a
 * Streams app forwards headers to a topic it writes with another serde) never turns an inline
 * payload into a failure; and an unmarked payload is taken for a ref only when it is a byte-exact
 * ref frame. An unmarked field that starts with the magic but is no intact frame is inline: nothing
 * says it was meant as a ref, and no serializer of this library writes one.
 *
 * <p>The marker is thus a hint (for tools, routing and the fast path of a reader), never the
 * decision: the check costs the comparison of 4 bytes for every non-null field.
 *
 * <p><b>Decoding.</b> A field that carries a ref but does not decode (a marked field that starts
 * with the magic but fails its length or CRC32 check) is {@link Reason#REFUSED}, except a ref
 * written by a newer library (an unknown version or codec): that is {@link Reason#UNAVAILABLE} with
 * a message saying "upgrade the reader", so a rolling upgrade never skips or dead-letters a record.
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
   * The value of the marker header for a ref of {@code refVersion} (1..9): the version as one ASCII
   * digit (a wire-format fact); every surface marks a field with it, replacing a stale marker.
   */
  public static String markerValue(int refVersion) {
    if (refVersion < 1 || refVersion > 9) {
      throw new IllegalArgumentException("ref version " + refVersion + " is not one digit");
    }
    return String.valueOf((char) ('0' + refVersion));
  }

  /**
   * Whether a field with bytes {@code data} carries a ref, given whether its record has the field's
   * marker header ({@code marked}): its bytes start with the ref magic, and it is marked or an
   * intact ref frame; false for a null field.
   */
  public static boolean carriesRef(boolean marked, byte[] data) {
    return data != null && startsWithMagic(data) && (marked || RefCodec.isRef(data));
  }

  /**
   * As {@link #carriesRef(boolean, byte[])} for a buffer (its remaining bytes, position unchanged).
   * A buffer that does not start with the magic, and an unmarked one longer than any ref frame, is
   * answered without a copy.
   */
  public static boolean carriesRef(boolean marked, ByteBuffer data) {
    if (data == null || !startsWithMagic(data)) {
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

  /** Whether {@code data} starts with {@link RefCodec#MAGIC} (false when shorter). */
  public static boolean startsWithMagic(byte[] data) {
    byte[] magic = RefCodec.MAGIC;
    if (data.length < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if (data[i] != magic[i]) {
        return false;
      }
    }
    return true;
  }

  /** Whether the remaining bytes of {@code data} start with {@link RefCodec#MAGIC}. */
  public static boolean startsWithMagic(ByteBuffer data) {
    byte[] magic = RefCodec.MAGIC;
    int at = data.position();
    if (data.limit() - at < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if (data.get(at + i) != magic[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Decodes the ref of a field that {@link #carriesRef carries one}; {@code isKey} names the field
   * in messages. Throws {@link ClaimCheckFailure}: {@code REFUSED} when the bytes are not a
   * readable ref, {@code UNAVAILABLE} ("upgrade the reader") when they are a ref of a version or
   * codec this library does not know.
   */
  public static ClaimRef decode(byte[] data, boolean isKey) {
    String field = isKey ? "key" : "value";
    try {
      return RefCodec.decode(data);
    } catch (MalformedRefException e) {
      if (e.needsNewerReader()) { // an unknown ref version or codec id
        throw new ClaimCheckFailure(
            Reason.UNAVAILABLE,
            "the "
                + field
                + " is a claim-check ref"
                + " written by a newer library: upgrade the reader ("
                + e.getMessage()
                + ")",
            e);
      }
      throw new ClaimCheckFailure(
          Reason.REFUSED,
          "the "
              + field
              + " is marked as a claim-check ref and starts with the ref magic (or is framed as one)"
              + " but is not a readable ref: "
              + e.getMessage(),
          e);
    }
  }
}
