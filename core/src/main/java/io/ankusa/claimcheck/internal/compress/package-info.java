/**
 * Not API: claim compression in the formats Kafka writes for record batches (gzip, snappy, lz4,
 * zstd), bounded on the way in; a leaf under the writer and the redeemer. It may change in any
 * release without notice; do not import it.
 */
package io.ankusa.claimcheck.internal.compress;
