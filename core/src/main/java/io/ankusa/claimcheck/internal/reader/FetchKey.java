package io.ankusa.claimcheck.internal.reader;

/**
 * What one fetch reads: a byte range of one pack object, read with one ranged GET; immutable. The
 * reader coalesces and caches by key: two fetches of equal keys are one store request and one cache
 * entry.
 *
 * <p>A fetch is always a range because a ref carries its claim's offset and length inside the pack:
 * a redeem never reads the pack's index first.
 *
 * @param tenant the tenant the pack belongs to
 * @param packIdHex the pack id, in hex
 * @param first the first byte of the pack object read (>= 0)
 * @param length how many bytes of the pack object are read (> 0)
 * @param cached whether the reader caches the answer: false for the chunks of a streamed redeem,
 *     which would flush every claim out of the cache and are read once
 */
public record FetchKey(String tenant, String packIdHex, long first, int length, boolean cached) {

  /** A key whose answer the reader caches. */
  public FetchKey(String tenant, String packIdHex, long first, int length) {
    this(tenant, packIdHex, first, length, true);
  }

  /** Validates the components; throws {@link IllegalArgumentException} naming the bad one. */
  public FetchKey {
    if (tenant == null || tenant.isEmpty()) {
      throw new IllegalArgumentException("tenant must be non-empty");
    }
    if (packIdHex == null || packIdHex.isEmpty()) {
      throw new IllegalArgumentException("packIdHex must be non-empty");
    }
    if (first < 0 || length <= 0) {
      throw new IllegalArgumentException("bad range key: first=" + first + ", length=" + length);
    }
  }

  /** Returns the key of {@code length} (> 0) bytes of a pack object from byte {@code first}. */
  public static FetchKey range(String tenant, String packIdHex, long first, int length) {
    return new FetchKey(tenant, packIdHex, first, length);
  }

  /**
   * Returns the key of one chunk of a streamed redeem: coalesced like any fetch, never cached (nor
   * equal to a cached range's key).
   */
  public static FetchKey chunk(String tenant, String packIdHex, long first, int length) {
    return new FetchKey(tenant, packIdHex, first, length, false);
  }
}
