package io.ankusa.claimcheck.internal.reader;

/**
 * One store's reader state at one moment; immutable.
 *
 * @param limit store requests the reader may run at once (its adaptive limit)
 * @param inflight store requests running now (may exceed {@code limit} just after it halved)
 * @param queued fetches waiting for a free slot
 */
public record StoreStats(int limit, int inflight, int queued) {}
