package io.ankusa.claimcheck.internal.pack;

import io.ankusa.claimcheck.ref.ClaimId;

/**
 * The constants of the pack object format; see {@link Packs} for its layout.
 *
 * <p>The header's length and layout are the same in every pack version, so a reader always fetches
 * {@link #HEADER_LENGTH} bytes first; only the index entry layout may change by version.
 */
final class PackFormat {

  /** The 4 bytes every pack starts with: {@code "AKPK"}. */
  static final byte[] MAGIC = {'A', 'K', 'P', 'K'};

  /** The pack format version written by {@link Packs#encode}. */
  static final int CURRENT_VERSION = 1;

  /**
   * The fixed header: magic (4), version (1), entry count (4), index length (4), pack length (8),
   * CRC32 over the header's preceding 21 bytes followed by the index (4).
   */
  static final int HEADER_LENGTH = 4 + 1 + 4 + 4 + 8 + 4;

  /**
   * A version-1 index entry: offset (8), length (4), CRC32C of the stored bytes (4), codec id (1).
   */
  static final int ENTRY_LENGTH_V1 = 8 + 4 + 4 + 1;

  /** The most claims one pack holds (indexes 0..65535). */
  static final int MAX_ENTRIES = ClaimId.MAX_INDEX + 1;

  /** Offset of the header's CRC32 field, which covers the bytes before it and then the index. */
  static final int HEADER_CRC_AT = HEADER_LENGTH - 4;

  private PackFormat() {}
}
