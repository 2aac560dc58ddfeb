package io.ankusa.claimcheck.collect;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Looks up topic ids with a short-lived admin client ({@code Admin#describeTopics}, public since
 * kafka-clients 3.1); stateless and thread-safe. A topic deleted and re-created under its name has
 * a new id, which partition counts alone do not show.
 */
final class TopicIds {

  private TopicIds() {}

  /**
   * The id of each of {@code topics} now, asked with the admin settings among {@code config}; a
   * topic that does not exist is absent. Throws {@link KafkaException} when the cluster did not
   * answer within {@code timeout}; an interrupt restores the flag and throws too.
   */
  static Map<String, Uuid> describe(
      Map<String, Object> config, String clientId, Set<String> topics, Duration timeout) {
    Map<String, Object> c = new HashMap<>();
    config.forEach(
        (k, v) -> {
          if (AdminClientConfig.configNames().contains(k)) {
            c.put(k, v);
          }
        });
    c.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    Map<String, Uuid> ids = new HashMap<>();
    try (Admin admin = Admin.create(c)) {
      Map<String, KafkaFuture<TopicDescription>> described =
          admin.describeTopics(topics).topicNameValues();
      for (Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet()) {
        try {
          ids.put(
              e.getKey(), e.getValue().get(timeout.toMillis(), TimeUnit.MILLISECONDS).topicId());
        } catch (ExecutionException x) {
          if (!(x.getCause() instanceof UnknownTopicOrPartitionException)) {
            throw new KafkaException("could not describe topic " + e.getKey(), x.getCause());
          }
        } catch (TimeoutException x) {
          throw new KafkaException(
              "topic " + e.getKey() + " was not described within " + timeout.toMillis() + " ms", x);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted while describing topics", e);
    }
    return ids;
  }
}
