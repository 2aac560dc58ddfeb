package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import java.util.Base64;

/**
 * Refs as they travel in the gateway's paths: base64url, no padding; stateless and thread-safe.
 * Decoding refuses a segment longer than the longest ref's encoding before it decodes anything.
 */
final class RefPath {

  /** The longest base64url (no padding) of a ref: ceil(4 * MAX_LENGTH / 3). */
  static final int MAX_CHARS = (RefCodec.MAX_LENGTH * 4 + 2) / 3;

  private RefPath() {}

  /** A path segment that is not a ref's base64url: 400. */
  static final class NotBase64 extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    NotBase64(String message) {
      super(message);
    }
  }

  /**
   * Decodes {@code segment}: {@link NotBase64} when it is not base64url of at most a ref's size,
   * {@link MalformedRefException} when its bytes are not a readable ref.
   */
  static ClaimRef decode(String segment) {
    if (segment.isEmpty() || segment.length() > MAX_CHARS) {
      throw new NotBase64(
          "a ref is 1.." + MAX_CHARS + " base64url characters, not " + segment.length());
    }
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      boolean ok =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!ok) {
        throw new NotBase64("a ref is base64url without padding: character " + i + " is not");
      }
    }
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(segment);
    } catch (IllegalArgumentException e) {
      throw new NotBase64("not base64url: " + e.getMessage());
    }
    return RefCodec.decode(bytes);
  }

  static String encode(ClaimRef ref) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(RefCodec.encode(ref));
  }

  /** The ETag of a claim: its checksum (CRC32C of the stored bytes), 8 lowercase hex digits. */
  static String etag(ClaimRef ref) {
    String hex = Integer.toHexString(ref.checksum()); // unsigned; no Formatter on every answer
    return "\"" + "00000000".substring(hex.length()) + hex + "\"";
  }
}
