/**
 * Not API: streamed claims — the streamed check-in (a source read once, checksummed and optionally
 * zstd-compressed on its way to one store) and the streamed redeem (ranged chunks through the
 * shared reader, decompressed as they come, the checksum verified at the end). It may change in any
 * release without notice; do not import it.
 */
package io.ankusa.claimcheck.internal.stream;
