package io.ankusa.claimcheck.kafka;

/**
 * Tells the pseudo topics whose serialized bytes Kafka Streams only hashes, never writes, from real
 * topics; stateless and thread-safe.
 *
 * <p>A foreign-key join serializes the left table's value for {@code <application.id>-<subscription
 * topic>-vh} (for example {@code app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic-vh})
 * on both sides of the join and compares the two hashes to drop stale responses. A check-in there
 * would store a claim nothing ever names, and since two check-ins of one value give two refs, the
 * hashes would never match and every joined result for a value at or above the threshold would be
 * dropped. Those bytes stay inline: they never leave the process.
 */
final class HashOnlyTopics {

  private static final String SUFFIX = "-topic-vh";
  private static final String REGISTRATION = "subscription-registration";

  private HashOnlyTopics() {}

  /** Whether {@code topic} is a foreign-key join's value-hash pseudo topic. */
  static boolean isHashOnly(String topic) {
    if (topic == null || !topic.endsWith(SUFFIX)) {
      return false;
    }
    int end = topic.length() - SUFFIX.length() - REGISTRATION.length();
    for (int i = 0; i <= end; i++) {
      if (topic.regionMatches(true, i, REGISTRATION, 0, REGISTRATION.length())) {
        return true;
      }
    }
    return false;
  }
}
