package io.ankusa.claimcheck.internal.failure;

/**
 * The one size both byte limits judge a claim by; stateless and thread-safe.
 *
 * <p>A reader refuses a ref whose size passes {@code claimcheck.read.max.bytes}; a writer refuses a
 * value longer than {@code claimcheck.write.max.bytes} and stores uncompressed one whose compressed
 * form would pass it, so with the same limit on both sides every written claim is readable.
 */
public final class ByteLimits {

  private ByteLimits() {}

  /** The larger of a claim's stored and its uncompressed length. */
  public static long limitedSize(long storedLength, long rawLength) {
    return Math.max(storedLength, rawLength);
  }
}
