package io.ankusa.claimcheck.kafka;

/**
 * Tells a Kafka Streams app's internal topics (changelog, repartition, foreign-key join topics,
 * value-hash pseudo topics) from its sink topics; stateless and thread-safe.
 *
 * <p>Streams names every internal topic {@code <application.id>-<name>-<suffix>}: {@code
 * -changelog} (state stores, suppression buffers), {@code -repartition} (key changes, {@code
 * repartition()}, {@code groupBy}), {@code -topic} (a foreign-key join's subscription and response
 * topics) and {@code -topic-vh} (value hashes). Without the application id (a serde the user
 * configured without it) the suffix alone decides. A sink topic that happens to look internal is
 * checked in by the serde, the safe side: only slower.
 */
final class StreamsTopics {

  private static final String[] SUFFIXES = {"-changelog", "-repartition", "-topic", "-topic-vh"};

  private StreamsTopics() {}

  /** Whether {@code topic} is (or may be) an internal topic of the app {@code applicationId}. */
  static boolean isInternal(String applicationId, String topic) {
    if (topic == null) {
      return true;
    }
    if (applicationId != null && !applicationId.isEmpty()) {
      if (!topic.startsWith(applicationId + "-")) {
        return false;
      }
    }
    for (String suffix : SUFFIXES) {
      if (topic.endsWith(suffix)) {
        return true;
      }
    }
    return HashOnlyTopics.isHashOnly(topic);
  }
}
