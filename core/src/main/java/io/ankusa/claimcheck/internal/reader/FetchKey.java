package io.ankusa.claimcheck.internal.reader;

import java.util.Objects;

/**
 * What one fetch reads; immutable. The reader coalesces and caches by key: two fetches of equal
 * keys are one store request and one cache entry.
 *
 * @param kind which part of a pack is read
 * @param tenant the tenant the pack belongs to
 * @param packIdHex the pack id, in hex
 * @param claimIndex the claim's index within the pack ({@link Kind#BYTES}), else -1
 * @param first the first byte of the pack object read ({@link Kind#RANGE}), else 0
 * @param length how many bytes of the pack object are read ({@link Kind#RANGE}), else 0
 */
public record FetchKey(
    Kind kind, String tenant, String packIdHex, int claimIndex, long first, int length) {

  /** Which part of a pack a fetch reads. */
  public enum Kind {
    /** A pack's index: the offsets, lengths and checksums of its claims. */
    INDEX,
    /** One claim's bytes. */
    BYTES,
    /** A byte range of the pack object (one ranged GET). */
    RANGE
  }

  /** Validates the components; throws {@link IllegalArgumentException} naming the bad one. */
  public FetchKey {
    Objects.requireNonNull(kind, "kind");
    if (tenant == null || tenant.isEmpty()) {
      throw new IllegalArgumentException("tenant must be non-empty");
    }
    if (packIdHex == null || packIdHex.isEmpty()) {
      throw new IllegalArgumentException("packIdHex must be non-empty");
    }
    boolean ok =
        switch (kind) {
          case INDEX -> claimIndex == -1 && first == 0 && length == 0;
          case BYTES -> claimIndex >= 0 && first == 0 && length == 0;
          case RANGE -> claimIndex == -1 && first >= 0 && length > 0;
        };
    if (!ok) {
      throw new IllegalArgumentException(
          "bad " + kind + " key: claimIndex=" + claimIndex + ", first=" + first
              + ", length=" + length);
    }
  }

  /** Returns the key of a pack's index. */
  public static FetchKey index(String tenant, String packIdHex) {
    return new FetchKey(Kind.INDEX, tenant, packIdHex, -1, 0, 0);
  }

  /** Returns the key of the bytes of claim {@code claimIndex} (>= 0) of a pack. */
  public static FetchKey bytes(String tenant, String packIdHex, int claimIndex) {
    return new FetchKey(Kind.BYTES, tenant, packIdHex, claimIndex, 0, 0);
  }

  /** Returns the key of {@code length} (> 0) bytes of a pack object from byte {@code first}. */
  public static FetchKey range(String tenant, String packIdHex, long first, int length) {
    return new FetchKey(Kind.RANGE, tenant, packIdHex, -1, first, length);
  }
}
