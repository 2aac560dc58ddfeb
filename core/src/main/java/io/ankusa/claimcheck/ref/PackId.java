package io.ankusa.claimcheck.ref;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The 64-bit id of a pack, written as 16 lowercase hex digits; immutable and thread-safe.
 *
 * @param value the id's 64 bits
 */
public record PackId(long value) {

  /** The number of hex digits in {@link #hex()}. */
  public static final int HEX_LENGTH = 16;

  private static final HexFormat HEX = HexFormat.of();

  /** Returns an id of 64 bits drawn from {@code random} (a {@code SecureRandom} in production). */
  public static PackId random(RandomGenerator random) {
    return new PackId(Objects.requireNonNull(random, "random").nextLong());
  }

  /**
   * Returns the id derived from {@code tenant} and {@code content}: the first 8 bytes (big-endian)
   * of SHA-256 over the tenant's bytes, a 0 byte, and the content — so one tenant and content
   * always yield one id, and no two tenants share an id by concatenation.
   */
  public static PackId fromContent(Tenant tenant, byte[] content) {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(content, "content");
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
    sha.update(tenant.value().getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) 0);
    byte[] digest = sha.digest(content);
    long v = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      v = (v << 8) | (digest[i] & 0xff);
    }
    return new PackId(v);
  }

  /**
   * Parses exactly 16 lowercase hex digits; throws {@link IllegalArgumentException} naming the
   * value otherwise (no sign, prefix, upper case or whitespace).
   */
  public static PackId parseHex(String hex) {
    Objects.requireNonNull(hex, "hex");
    if (hex.length() != HEX_LENGTH) {
      throw new IllegalArgumentException(
          "invalid pack id \"" + hex + "\": expected " + HEX_LENGTH + " lowercase hex digits");
    }
    for (int i = 0; i < HEX_LENGTH; i++) {
      char c = hex.charAt(i);
      if (!HexFormat.isHexDigit(c) || Character.isUpperCase(c)) {
        throw new IllegalArgumentException(
            "invalid pack id \"" + hex + "\": character at index " + i + " is not in [0-9a-f]");
      }
    }
    return new PackId(HexFormat.fromHexDigitsToLong(hex));
  }

  /** Returns the id as 16 lowercase hex digits, zero-padded. */
  public String hex() {
    return HEX.toHexDigits(value);
  }

  /** Returns {@link #hex()}. */
  @Override
  public String toString() {
    return hex();
  }
}
