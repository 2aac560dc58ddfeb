/**
 * Not API: byte-level helpers of the wire formats (big-endian fields, checksums), a leaf package
 * that both the public ref codec and the internal pack format use.
 */
package io.ankusa.claimcheck.internal.wire;
