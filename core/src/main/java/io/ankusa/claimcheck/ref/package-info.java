/**
 * Refs and packs: the binary, versioned ref that replaces a checked-in payload in a Kafka record,
 * and the pack object format that holds one or more claims in a store.
 *
 * <p>Every public type here is immutable and thread-safe (the two byte-array carriers, {@link
 * io.ankusa.claimcheck.ref.PackEntryInput} and {@link io.ankusa.claimcheck.ref.EncodedPack}, take
 * ownership of their arrays instead of copying them; see their docs). Bytes that do not parse are
 * refused with {@link io.ankusa.claimcheck.ref.MalformedRefException} or {@link
 * io.ankusa.claimcheck.ref.CorruptPackException}, never decoded into something else.
 *
 * <p>A claim is never empty: a payload is checked in only at or above a positive threshold, so an
 * empty payload always stays inline. Refs and pack entries therefore reject a length of 0, which
 * keeps "entries do not overlap" a plain ordering check.
 */
package io.ankusa.claimcheck.ref;
