package io.ankusa.claimcheck.examples.springboot;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.TopicBuilder;

/**
 * A Spring Boot application whose Kafka values may be any size: Spring Kafka's auto-configured
 * {@code KafkaTemplate} and {@code @KafkaListener} container use the claim-check serializer and
 * deserializer that {@code application.properties} names, and nothing here knows about them.
 */
@SpringBootApplication
public class ClaimCheckExampleApplication {

  public static void main(String[] args) {
    SpringApplication.run(ClaimCheckExampleApplication.class, args);
  }

  /**
   * The topic, created at start-up if missing, with Kafka's usual 1 MiB record limit stated
   * outright: values far larger still travel, as refs of under 100 bytes.
   */
  @Bean
  NewTopic largeValuesTopic(
      @Value("${example.topic}") String topic,
      @Value("${example.topic.max.message.bytes}") String maxMessageBytes) {
    return TopicBuilder.name(topic)
        .partitions(1)
        .replicas(1)
        .config(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, maxMessageBytes)
        .build();
  }
}
