package io.ankusa.claimcheck.examples.springboot;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Service;

/**
 * Sends byte values of any size to the example topic and receives them back; thread-safe.
 *
 * <p>Plain Spring Kafka: the template and the listener see the values themselves, the topic holds
 * refs for those at or above {@code claimcheck.threshold.bytes}. Each received record is logged
 * with its size and SHA-256 and queued in {@link #received()}, where a real application would
 * process it instead.
 */
@Service
public class LargeValues {

  private static final Logger LOG = LoggerFactory.getLogger(LargeValues.class);

  private final KafkaTemplate<String, byte[]> template;
  private final String topic;
  private final BlockingQueue<ConsumerRecord<String, byte[]>> received =
      new LinkedBlockingQueue<>();

  public LargeValues(
      KafkaTemplate<String, byte[]> template, @Value("${example.topic}") String topic) {
    this.template = template;
    this.topic = topic;
  }

  /** Sends {@code value} under {@code key}; completes once the broker took the record. */
  public CompletableFuture<SendResult<String, byte[]>> send(String key, byte[] value) {
    return template.send(topic, key, value);
  }

  @KafkaListener(topics = "${example.topic}")
  void receive(ConsumerRecord<String, byte[]> record) {
    LOG.info(
        "received {}: {} bytes, sha-256 {}",
        record.key(),
        record.value().length,
        sha256(record.value()));
    received.add(record);
  }

  /** The records received so far, in arrival order (taking one removes it). */
  public BlockingQueue<ConsumerRecord<String, byte[]>> received() {
    return received;
  }

  static String sha256(byte[] value) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
