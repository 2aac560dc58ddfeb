package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ref.RefCodec;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The marker headers a record carrying a ref gets, for tools and routing; thread-safe (stateless).
 *
 * <p>A record whose value is a ref carries {@link #VALUE_MARKER}; one whose key is a ref carries
 * {@link #KEY_MARKER}. The header's value is the version of the ref the record carries, as one
 * ASCII digit (1, or 2 for a compressed claim's ref). When a
 * record has headers, the marker is what tells a ref from an inline payload; only where no headers
 * are passed does a deserializer fall back to the ref's magic and CRC.
 */
public final class ClaimCheckHeaders {

  /** Marks a record whose value is a claim-check ref. */
  public static final String VALUE_MARKER = "ankusa.claimcheck.value";

  /** Marks a record whose key is a claim-check ref. */
  public static final String KEY_MARKER = "ankusa.claimcheck.key";

  private static final byte[] VERSION = {
    (byte) ('0' + io.ankusa.claimcheck.ref.ClaimRef.CURRENT_VERSION)
  };

  private ClaimCheckHeaders() {}

  /** Returns the marker header name for a key ({@code isKey}) or a value. */
  public static String marker(boolean isKey) {
    return isKey ? KEY_MARKER : VALUE_MARKER;
  }

  /**
   * Sets the marker (replacing any stale one) with the newest ref version; prefer {@link
   * #mark(Headers, boolean, int)} with the ref's own version.
   */
  public static void mark(Headers headers, boolean isKey) {
    headers.remove(marker(isKey));
    headers.add(marker(isKey), VERSION.clone());
  }

  /** Sets the marker (replacing any stale one) for a ref of {@code refVersion} (1..9). */
  public static void mark(Headers headers, boolean isKey, int refVersion) {
    if (refVersion < 1 || refVersion > 9) {
      throw new IllegalArgumentException("ref version " + refVersion + " is not one digit");
    }
    headers.remove(marker(isKey));
    headers.add(marker(isKey), new byte[] {(byte) ('0' + refVersion)});
  }

  /** Removes a stale marker (Streams forwards input headers to its output). */
  public static void unmark(Headers headers, boolean isKey) {
    headers.remove(marker(isKey));
  }

  /** Whether {@code headers} carry the marker. */
  public static boolean isMarked(Headers headers, boolean isKey) {
    Header h = headers.lastHeader(marker(isKey));
    return h != null;
  }

  /**
   * Whether {@code data} is to be redeemed: marked, when there are headers; else a valid ref frame
   * (magic and CRC).
   */
  public static boolean carriesRef(Headers headers, byte[] data, boolean isKey) {
    if (data == null) {
      return false;
    }
    if (headers != null) {
      return isMarked(headers, isKey);
    }
    return RefCodec.isRef(data);
  }
}
