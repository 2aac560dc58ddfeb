package io.ankusa.claimcheck.benchmarks;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * Empty, writable record headers through public Kafka API (their class is in an internal package).
 */
final class NewHeaders {

  private NewHeaders() {}

  static Headers create() {
    return new ProducerRecord<byte[], byte[]>("headers", null).headers();
  }
}
