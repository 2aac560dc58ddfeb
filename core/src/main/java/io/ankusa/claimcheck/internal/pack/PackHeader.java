package io.ankusa.claimcheck.internal.pack;

/**
 * A pack's parsed fixed header; immutable and thread-safe. The index follows the header: read
 * {@link #indexLength()} bytes at {@link #indexOffset()}, or the whole {@link #prefixLength()}.
 *
 * @param version the pack format version
 * @param entryCount the number of claims, 1..{@value PackFormat#MAX_ENTRIES}
 * @param indexLength the index's length in bytes
 * @param packLength the whole pack object's length in bytes
 * @param crc the CRC32 over the header's bytes before it and then the index
 */
record PackHeader(int version, int entryCount, int indexLength, long packLength, int crc) {

  /** Validates the fields' ranges; throws {@link IllegalArgumentException} naming the bad one. */
  PackHeader {
    if (entryCount < 1 || entryCount > PackFormat.MAX_ENTRIES) {
      throw new IllegalArgumentException(
          "entry count " + entryCount + " is outside 1.." + PackFormat.MAX_ENTRIES);
    }
    if (indexLength < 0) {
      throw new IllegalArgumentException("index length " + indexLength + " is negative");
    }
    if (packLength < (long) PackFormat.HEADER_LENGTH + indexLength + entryCount) {
      throw new IllegalArgumentException(
          "pack length "
              + packLength
              + " cannot hold the header, an index of "
              + indexLength
              + " bytes and "
              + entryCount
              + " non-empty claims");
    }
  }

  /** Returns where the index starts: right after the header. */
  int indexOffset() {
    return PackFormat.HEADER_LENGTH;
  }

  /** Returns the length of header + index: one ranged GET of this many bytes reads both. */
  int prefixLength() {
    return PackFormat.HEADER_LENGTH + indexLength;
  }
}
