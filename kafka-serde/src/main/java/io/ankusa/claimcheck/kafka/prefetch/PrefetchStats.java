package io.ankusa.claimcheck.kafka.prefetch;

/**
 * Counts of one {@link PrefetchingConsumer}'s prefetches since it was built ({@link
 * PrefetchingConsumer#stats()}); immutable. For tests, benchmarks and dashboards: a prefetch that
 * failed or was skipped costs nothing but the wait, since the deserializer fetches (and reports)
 * the claim itself.
 *
 * @param started redeems started
 * @param succeeded started redeems that completed with the claim's bytes
 * @param failed started redeems that completed with a failure (the deserializer reports it)
 * @param skipped distinct refs not prefetched: no cache (or prefetch disabled), cached already,
 *     read by the application before their turn, or still waiting for the window at their deadline
 * @param malformed marked values that are no ref (the deserializer refuses them)
 * @param unread started redeems whose pinned claim was released without being read (its deadline
 *     passed, or the consumer closed)
 */
public record PrefetchStats(
    long started, long succeeded, long failed, long skipped, long malformed, long unread) {}
