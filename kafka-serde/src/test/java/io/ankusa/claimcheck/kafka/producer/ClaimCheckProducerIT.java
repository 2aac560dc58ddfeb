package io.ankusa.claimcheck.kafka.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.Servers;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimCheckProducer} against a real KRaft broker and a real S3 server behind the fault
 * proxy: order per partition under random PUT latencies, back-pressure from a hung store, a failed
 * upload in the middle of a partition's run, transactions, flush and close with uploads pending,
 * partitions added mid-stream. Values above 1 KiB are checked in; each value names its key and its
 * sequence number.
 */
class ClaimCheckProducerIT {

  private static final int THRESHOLD = 1024;
  private static FaultProxy proxy;
  private static String bucket;

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("producer"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterEach
  void clear() {
    proxy.clear();
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  private static Map<String, Object> config() {
    Map<String, Object> m = Servers.oneStore(proxy, bucket);
    m.put("claimcheck.threshold.bytes", THRESHOLD);
    m.put("claimcheck.store.op.deadline.ms", "5000");
    m.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    m.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return m;
  }

  private static ClaimCheckProducer<String, byte[]> producer(Map<String, Object> config) {
    return new ClaimCheckProducer<>(config, new StringSerializer(), new ByteArraySerializer());
  }

  /** A value naming {@code key} and {@code seq}, {@code big} enough to be checked in or not. */
  private static byte[] value(int keyIndex, int seq, boolean big) {
    ByteBuffer b = ByteBuffer.allocate(big ? THRESHOLD + 500 + seq % 700 : 16);
    b.putInt(keyIndex).putInt(seq);
    return b.array();
  }

  private static int seqOf(byte[] value) {
    return ByteBuffer.wrap(value).getInt(4);
  }

  private static List<ConsumerRecord<String, byte[]>> consume(
      String topic, int n, boolean readCommitted) {
    return consume(topic, n, readCommitted, new ClaimCheckDeserializer<byte[]>());
  }

  /**
   * Reads {@code topic} from the start (assigned, no group) until n records came, and a bit more.
   */
  private static <V> List<ConsumerRecord<String, V>> consume(
      String topic,
      int n,
      boolean readCommitted,
      org.apache.kafka.common.serialization.Deserializer<V> values) {
    Map<String, Object> c = Servers.consumer(Servers.oneStore(proxy, bucket), Servers.unique("g"));
    if (readCommitted) {
      c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    }
    values.configure(c, false);
    try (KafkaConsumer<String, V> consumer =
        new KafkaConsumer<>(
            c, new org.apache.kafka.common.serialization.StringDeserializer(), values)) {
      List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>();
      consumer
          .partitionsFor(topic)
          .forEach(
              pi -> tps.add(new org.apache.kafka.common.TopicPartition(topic, pi.partition())));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      List<ConsumerRecord<String, V>> all = Servers.pollAll(consumer, n, Duration.ofSeconds(20));
      consumer.poll(Duration.ofMillis(300)).forEach(all::add); // nothing beyond n may arrive
      return all;
    }
  }

  @Test
  void eachPartitionKeepsItsOrderUnderRandomUploadLatencyNothingLostOrDuplicated()
      throws Exception {
    String topic = Servers.unique("order");
    Servers.kafka().createTopic(topic, 3);
    int keys = 6;
    int records = 2000;
    Random random = new Random(42);
    AtomicBoolean stop = new AtomicBoolean();
    Thread jitter =
        new Thread(
            () -> { // every few ms a fresh PUT latency of 0-40 ms, seeded
              Random r = new Random(7);
              while (!stop.get()) {
                proxy.inject(Fault.hang(Duration.ofMillis(r.nextInt(30))), "PUT");
                try {
                  Thread.sleep(3);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    jitter.start();
    int[] next = new int[keys];
    int claimed = 0;
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (ClaimCheckProducer<String, byte[]> p = producer(config())) {
      for (int i = 0; i < records; i++) {
        int k = random.nextInt(keys);
        boolean big = random.nextInt(3) == 0;
        claimed += big ? 1 : 0;
        ProducerRecord<String, byte[]> r =
            new ProducerRecord<>(topic, "key-" + k, value(k, next[k], big));
        r.headers().add("seq", ByteBuffer.allocate(4).putInt(next[k]++).array());
        sent.add(p.send(r));
      }
      p.flush();
      for (Future<RecordMetadata> f : sent) { // every send acknowledged: none failed quietly
        assertThat(f).isDone();
        f.get();
      }
      assertThat(p.packsWritten()).isEqualTo(claimed);
    } finally {
      stop.set(true);
      jitter.join();
    }
    Map<String, Integer> seen = new HashMap<>();
    Map<Integer, String> keyOfPartition = new HashMap<>();
    // raw bytes: the order is in a header, the refs need no redeem to be counted
    List<ConsumerRecord<String, byte[]>> got =
        consume(
            topic,
            records,
            false,
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    assertThat(got).hasSize(records);
    int refs = 0;
    for (ConsumerRecord<String, byte[]> r : got) { // consumed per partition in offset order
      int expected = seen.getOrDefault(r.key(), 0);
      int seq = ByteBuffer.wrap(r.headers().lastHeader("seq").value()).getInt();
      assertThat(seq).as("key %s in partition %d", r.key(), r.partition()).isEqualTo(expected);
      boolean marked = r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null;
      assertThat(io.ankusa.claimcheck.ref.RefCodec.isRef(r.value())).isEqualTo(marked);
      if (!marked) {
        assertThat(seqOf(r.value())).isEqualTo(seq);
      }
      refs += marked ? 1 : 0;
      seen.put(r.key(), expected + 1);
    }
    assertThat(refs).isEqualTo(claimed);
    for (int k = 0; k < keys; k++) {
      assertThat(seen.get("key-" + k)).isEqualTo(next[k]);
    }
  }

  @Test
  void partitionsAddedMidStreamPutNoRecordOfAKeyBehindALaterOneInAnyPartition() throws Exception {
    String topic = Servers.unique("grow");
    Servers.kafka().createTopic(topic, 2);
    List<String> keys = new ArrayList<>(); // keys that move when 2 partitions become 6
    for (int i = 0; keys.size() < 4; i++) {
      int h = Utils.toPositive(Utils.murmur2(("key-" + i).getBytes()));
      if (h % 6 != h % 2) {
        keys.add("key-" + i);
      }
    }
    proxy.inject(Fault.hang(Duration.ofMillis(50)), "PUT"); // a big value still uploads when ...
    Map<String, Object> c = config();
    c.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 200); // ... the producer learns of the new ones
    int[] next = new int[keys.size()];
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (ClaimCheckProducer<String, byte[]> p = producer(c);
        Admin admin =
            Admin.create(
                Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    Servers.kafka().bootstrapServers()))) {
      int left = -1; // rounds still to send once the producer knows 6 partitions
      for (int round = 0; left != 0; round++) {
        for (int k = 0; k < keys.size(); k++) { // big, small, big, ...: the small one may pass
          ProducerRecord<String, byte[]> r =
              new ProducerRecord<>(topic, keys.get(k), value(k, next[k], round % 2 == 0));
          r.headers().add("seq", ByteBuffer.allocate(4).putInt(next[k]++).array());
          sent.add(p.send(r));
        }
        if (round == 20) {
          admin
              .createPartitions(Map.of(topic, NewPartitions.increaseTo(6)))
              .all()
              .get(30, TimeUnit.SECONDS);
        }
        if (left < 0 && round > 20 && p.partitionsFor(topic).size() == 6) {
          left = 20;
        } else if (left > 0) {
          left--;
        }
        assertThat(round).as("the producer never learnt of the new partitions").isLessThan(5000);
        Thread.sleep(10);
      }
      p.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(0, TimeUnit.SECONDS);
      }
    }
    List<ConsumerRecord<String, byte[]>> got =
        consume(
            topic,
            sent.size(),
            false,
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    assertThat(got).hasSize(sent.size());
    Map<String, Integer> last = new HashMap<>(); // key@partition -> last seq seen there
    Map<String, java.util.Set<Integer>> partitionsOf = new HashMap<>();
    for (ConsumerRecord<String, byte[]> r : got) { // each partition in offset order
      int seq = ByteBuffer.wrap(r.headers().lastHeader("seq").value()).getInt();
      String where = r.key() + "@" + r.partition();
      assertThat(seq)
          .as("%s after seq %s", where, last.get(where))
          .isGreaterThan(last.getOrDefault(where, -1));
      last.put(where, seq);
      partitionsOf.computeIfAbsent(r.key(), k -> new java.util.HashSet<>()).add(r.partition());
    }
    assertThat(partitionsOf.values()).allMatch(ps -> ps.size() == 2); // every key moved once
  }

  @Test
  void aHungStoreBlocksSendForMaxBlockMsAtMostThenFailsItWithATimeout() throws Exception {
    String topic = Servers.unique("pressure");
    Servers.kafka().createTopic(topic, 1);
    proxy.inject(Fault.hang(Duration.ofSeconds(4)), "PUT");
    Map<String, Object> c = config();
    c.put(ClaimCheckProducer.WRITE_BUFFER_BYTES, 3000);
    c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000);
    c.put("claimcheck.store.op.deadline.ms", "3000");
    ClaimCheckProducer<String, byte[]> p = producer(c);
    try {
      Future<RecordMetadata> first = p.send(new ProducerRecord<>(topic, "k", value(0, 0, true)));
      long start = System.nanoTime();
      Future<RecordMetadata> second = p.send(new ProducerRecord<>(topic, "k", value(0, 1, true)));
      long blockedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(blockedMs).isGreaterThanOrEqualTo(900).isLessThan(10_000);
      assertThatThrownBy(() -> second.get(0, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TimeoutException.class);
      assertThat(first.isDone()).isFalse();
    } finally {
      p.close(Duration.ZERO);
    }
  }

  @Test
  void aFailedUploadFailsItsRecordAndTheOnesQueuedBehindItWithIdempotenceOn() throws Exception {
    String topic = Servers.unique("failed");
    Servers.kafka().createTopic(topic, 1);
    Map<String, Object> c = config();
    c.put(ClaimCheckProducer.WRITE_MAX_INFLIGHT, 1); // B's PUT is the first after the fault
    try (ClaimCheckProducer<String, byte[]> p = producer(c)) {
      p.send(new ProducerRecord<>(topic, "k", value(0, 0, true))).get();
      // B's PUT, the next one, fails; a 403 ends a write at once (a 500 would be retried inside
      // the write deadline). It answers after 300 ms, so C and D queue behind B. The fault is
      // armed before B is sent: armed after, B's PUT could reach the proxy first and succeed.
      proxy.failTimes(1, Fault.forbiddenAfter(Duration.ofMillis(300)), "PUT");
      Future<RecordMetadata> b = p.send(new ProducerRecord<>(topic, "k", value(0, 1, true)));
      Future<RecordMetadata> cSmall = p.send(new ProducerRecord<>(topic, "k", value(0, 2, false)));
      Future<RecordMetadata> d = p.send(new ProducerRecord<>(topic, "k", value(0, 3, true)));
      p.flush();
      assertThatThrownBy(b::get).hasCauseInstanceOf(ClaimCheckException.class);
      assertThatThrownBy(cSmall::get)
          .cause()
          .isInstanceOf(KafkaException.class)
          .hasCauseInstanceOf(ClaimCheckException.class);
      assertThatThrownBy(d::get)
          .cause()
          .isInstanceOf(KafkaException.class)
          .hasCauseInstanceOf(ClaimCheckException.class);
      proxy.clear();
      p.send(new ProducerRecord<>(topic, "k", value(0, 4, true))).get();
    }
    List<ConsumerRecord<String, byte[]>> got = consume(topic, 2, false);
    assertThat(got).extracting(r -> seqOf(r.value())).containsExactly(0, 4);
  }

  @Test
  void aReadCommittedConsumerSeesTheCommittedTransactionOnly() throws Exception {
    String topic = Servers.unique("tx");
    Servers.kafka().createTopic(topic, 2);
    Map<String, Object> c = config();
    c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Servers.unique("tx"));
    proxy.inject(Fault.hang(Duration.ofMillis(200)), "PUT");
    try (ClaimCheckProducer<String, byte[]> p = producer(c)) {
      p.initTransactions();
      p.beginTransaction();
      for (int i = 0; i < 10; i++) {
        p.send(new ProducerRecord<>(topic, "k" + i % 2, value(i % 2, i, i % 2 == 0)));
      }
      p.commitTransaction(); // returns once the slow check-ins are in and committed
      p.beginTransaction();
      List<Future<RecordMetadata>> aborted = new ArrayList<>();
      for (int i = 10; i < 20; i++) {
        aborted.add(p.send(new ProducerRecord<>(topic, "k" + i % 2, value(i % 2, i, true))));
      }
      p.abortTransaction(); // with uploads pending
      for (Future<RecordMetadata> f : aborted) {
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class);
      }
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, "k0", value(0, 20, true)));
      p.commitTransaction();
    }
    List<ConsumerRecord<String, byte[]>> got = consume(topic, 11, true);
    assertThat(got)
        .extracting(r -> seqOf(r.value()))
        .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20);
  }

  @Test
  void flushAndCloseWaitForTheUploadsPending() throws Exception {
    String topic = Servers.unique("drain");
    Servers.kafka().createTopic(topic, 2);
    proxy.inject(Fault.hang(Duration.ofMillis(300)), "PUT");
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    ClaimCheckProducer<String, byte[]> p = producer(config());
    for (int i = 0; i < 20; i++) {
      sent.add(p.send(new ProducerRecord<>(topic, "k" + i % 3, value(i % 3, i, true))));
    }
    assertThat(sent.get(0).isDone()).isFalse();
    p.flush();
    assertThat(sent).allMatch(Future::isDone);
    for (Future<RecordMetadata> f : sent) {
      assertThat(f.get().offset()).isGreaterThanOrEqualTo(0);
    }
    for (int i = 20; i < 30; i++) {
      sent.add(p.send(new ProducerRecord<>(topic, "k" + i % 3, value(i % 3, i, true))));
    }
    p.close(Duration.ofSeconds(30));
    for (Future<RecordMetadata> f : sent) {
      assertThat(f.get(0, TimeUnit.SECONDS).offset()).isGreaterThanOrEqualTo(0);
    }
    assertThat(consume(topic, 30, false)).hasSize(30);
  }
}
