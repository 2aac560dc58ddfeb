package io.ankusa.claimcheck.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The producer and consumer loops {@link PeerHarness} times, written against the Kafka client API
 * alone, so that one copy runs on our Kafka clients and another, in a {@link PeerClassLoader}, on
 * the Kafka clients the peer links against; stateless, so thread-safe.
 *
 * <p>Serializer and deserializer classes are named in the configs and resolve in this class's own
 * loader (it is the thread's context loader during a call). Signatures use JDK types only where the
 * harness passes values across loaders; the Kafka-typed hooks are null there.
 */
public final class ClientDriver {

  private ClientDriver() {}

  /**
   * Sends {@code keys[i], values[i]} for {@code i < n} to partition 0 of {@code topic} with a
   * producer built from {@code config}, then flushes; a send the serializer refuses, or the broker
   * fails, is counted and its message added to {@code errors}. Returns {send + flush nanoseconds,
   * records acknowledged}.
   */
  public static long[] send(
      Map<String, Object> config,
      String topic,
      byte[][] keys,
      byte[][] values,
      int n,
      List<String> errors) {
    ClassLoader before = enter();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        try {
          acks.add(producer.send(new ProducerRecord<>(topic, 0, keys[i], values[i])));
        } catch (KafkaException e) {
          errors.add(describe(e));
        }
      }
      producer.flush();
      long took = System.nanoTime() - start;
      long ok = 0;
      for (Future<RecordMetadata> f : acks) {
        try {
          f.get();
          ok++;
        } catch (ExecutionException e) {
          errors.add(describe(e.getCause()));
        }
      }
      return new long[] {took, ok};
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending", e);
    } finally {
      Thread.currentThread().setContextClassLoader(before);
    }
  }

  /**
   * Reads partition 0 of {@code topic} from the beginning with a consumer built from {@code config}
   * (wrapped by {@code wrap} when not null) until {@code n} records came, handing each record's key
   * and value ({@code after}-deserialized when not null) to {@code check}; returns the nanoseconds
   * from the first poll to the last check.
   *
   * @throws AssertionError when {@code n} records did not come within {@code giveUp}
   */
  public static long consume(
      Map<String, Object> config,
      String topic,
      int n,
      Duration giveUp,
      UnaryOperator<Consumer<byte[], byte[]>> wrap,
      Deserializer<byte[]> after,
      BiConsumer<byte[], byte[]> check) {
    ClassLoader before = enter();
    try {
      Consumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
      if (wrap != null) {
        try {
          consumer = wrap.apply(consumer);
        } catch (RuntimeException e) {
          consumer.close();
          throw e;
        }
      }
      try {
        return timedRead(consumer, topic, n, giveUp, after, check);
      } finally {
        consumer.close();
      }
    } finally {
      Thread.currentThread().setContextClassLoader(before);
    }
  }

  /**
   * Joins the group of {@code config} on {@code topic} and polls until a poll returns records or
   * throws, then commits. Returns {the nanoseconds that poll took, what it did, what the commit
   * did}.
   */
  public static String[] pollInGroup(Map<String, Object> config, String topic) {
    ClassLoader before = enter();
    try (Consumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (System.nanoTime() - until < 0) {
        long start = System.nanoTime();
        String did;
        try {
          int n = consumer.poll(Duration.ofMillis(200)).count();
          if (n == 0) {
            continue;
          }
          did = "returned " + n + " record(s)";
        } catch (KafkaException e) {
          did = "threw " + describe(e);
        }
        long took = System.nanoTime() - start;
        String commit;
        try {
          consumer.commitSync(Duration.ofSeconds(10));
          commit = "commit ok";
        } catch (KafkaException e) {
          commit = "commit failed: " + describe(e);
        }
        return new String[] {Long.toString(took), did, commit};
      }
      throw new AssertionError("no record and no failure in 90 s");
    } finally {
      Thread.currentThread().setContextClassLoader(before);
    }
  }

  private static long timedRead(
      Consumer<byte[], byte[]> consumer,
      String topic,
      int n,
      Duration giveUp,
      Deserializer<byte[]> after,
      BiConsumer<byte[], byte[]> check) {
    TopicPartition tp = new TopicPartition(topic, 0);
    consumer.assign(List.of(tp));
    consumer.seekToBeginning(List.of(tp));
    consumer.position(tp); // resolve the offset before the clock starts
    int seen = 0;
    long start = System.nanoTime();
    long until = start + giveUp.toNanos();
    while (seen < n) {
      if (System.nanoTime() - until > 0) {
        throw new AssertionError("only " + seen + " of " + n + " records in " + giveUp);
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        byte[] value = after == null ? r.value() : after.deserialize(topic, r.headers(), r.value());
        check.accept(r.key(), value);
        seen++;
      }
    }
    return System.nanoTime() - start;
  }

  private static ClassLoader enter() {
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    Thread.currentThread().setContextClassLoader(ClientDriver.class.getClassLoader());
    return before;
  }

  private static String describe(Throwable e) {
    String s = e.getClass().getSimpleName() + ": " + e.getMessage();
    Throwable cause = e.getCause();
    if (cause != null && cause != e) {
      s += " <- " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }
}
