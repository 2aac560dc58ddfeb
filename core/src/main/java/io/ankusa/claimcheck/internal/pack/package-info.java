/**
 * Not API: the pack format, the store objects holding one or more claims behind a CRC-protected
 * index ({@code Packs}: write a pack, check a claim read back from one). It may change in any
 * release without notice; do not import it.
 */
package io.ankusa.claimcheck.internal.pack;
