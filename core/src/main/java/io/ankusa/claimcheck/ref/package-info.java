/**
 * Refs: the binary, versioned ref that replaces a checked-in payload in a Kafka record ({@link
 * io.ankusa.claimcheck.ref.ClaimRef}, encoded and decoded by {@link
 * io.ankusa.claimcheck.ref.RefCodec}). The pack object format that holds claims in a store is not
 * API ({@code internal.pack}).
 *
 * <p>Every public type here is immutable and thread-safe. Bytes that do not parse are refused with
 * {@link io.ankusa.claimcheck.ref.MalformedRefException}, never decoded into something else.
 *
 * <p>A claim is never empty: a payload is checked in only at or above a positive threshold, so an
 * empty payload always stays inline. Refs and pack entries therefore reject a length of 0, which
 * keeps "entries do not overlap" a plain ordering check.
 */
package io.ankusa.claimcheck.ref;
