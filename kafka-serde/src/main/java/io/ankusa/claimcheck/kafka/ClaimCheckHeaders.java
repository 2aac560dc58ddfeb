package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.kafka.internal.Markers;
import io.ankusa.claimcheck.ref.ClaimRef;
import org.apache.kafka.common.header.Headers;

/**
 * The marker headers a record carrying a ref gets, a hint for tools and routing; thread-safe
 * (stateless).
 *
 * <p>The serializer sets {@link #VALUE_MARKER} ({@link #KEY_MARKER} for a key) when it writes a ref
 * and removes it when it writes an inline value: the marker says the last field this library wrote
 * with that {@code Headers} object was a ref. For a plain record that is the field itself. Where
 * one field's bytes come from several serializer calls with one {@code Headers} (Kafka Streams'
 * {@code Change} of a new and an old value, foreign-key join wrappers) it describes the last part
 * written, so a marked field holds a ref as a whole or as a part; an unmarked one may still hold
 * one (an earlier part, a ref written without headers, a mirror that dropped them). The header's
 * value is the version of that ref, as one ASCII digit (1, or 2 for a compressed claim's ref).
 *
 * <p>The names are wire-format facts defined once in core ({@link RefFields}); so is the rule
 * telling a ref from an inline payload, where the bytes decide: a field that does not start with
 * the ref magic is inline, marked or not; one that does is a ref when marked or when it is an
 * intact ref frame (magic, length and CRC).
 */
public final class ClaimCheckHeaders {

  /** Marks a record whose value is a claim-check ref. */
  public static final String VALUE_MARKER = RefFields.VALUE_MARKER;

  /** Marks a record whose key is a claim-check ref. */
  public static final String KEY_MARKER = RefFields.KEY_MARKER;

  private ClaimCheckHeaders() {}

  /** Returns the marker header name for a key ({@code isKey}) or a value. */
  public static String marker(boolean isKey) {
    return RefFields.marker(isKey);
  }

  /**
   * Sets the marker (replacing any stale one) with the newest ref version; prefer {@link
   * #mark(Headers, boolean, int)} with the ref's own version.
   */
  public static void mark(Headers headers, boolean isKey) {
    Markers.mark(headers, isKey, ClaimRef.CURRENT_VERSION);
  }

  /**
   * Sets the marker (replacing any stale one) for a ref of {@code refVersion} (1..9), its value
   * {@link RefFields#markerValue}.
   */
  public static void mark(Headers headers, boolean isKey, int refVersion) {
    Markers.mark(headers, isKey, refVersion);
  }

  /**
   * Removes a stale marker (Streams forwards input headers to its output); headers without one are
   * only read, never written (so read-only headers without a marker are fine).
   */
  public static void unmark(Headers headers, boolean isKey) {
    Markers.unmark(headers, isKey);
  }

  /** Whether {@code headers} carry the marker; false for null headers. */
  public static boolean isMarked(Headers headers, boolean isKey) {
    return Markers.isMarked(headers, isKey);
  }

  /**
   * Whether {@code data} is to be redeemed ({@link RefFields#carriesRef(boolean, byte[])}): it
   * starts with the ref magic and is marked or an intact ref frame (magic, length and CRC),
   * whatever other headers there are. A field without the magic is answered without a header
   * lookup.
   */
  public static boolean carriesRef(Headers headers, byte[] data, boolean isKey) {
    return Markers.carriesRef(headers, data, isKey);
  }
}
