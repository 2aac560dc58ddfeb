package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.kafka.internal.PendingCheckIns;
import io.ankusa.claimcheck.kafka.producer.ClaimCheckProducer;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * A real Streams app ({@code source → mapValues → to(sink)}, plus {@code repartition()} and {@code
 * groupByKey().reduce}) with {@link ClaimCheckClientSupplier}'s pipelined producer, on the embedded
 * broker and S3 server with 50 ms added to every PUT: the sink's large values are checked in by the
 * producer (not the stream thread), each key's records reach the sink in order, every sink value
 * redeems byte for byte, and the repartition and changelog records are the serde's refs, passed on
 * unchanged.
 */
class StreamsPipelinedCheckInIT {

  static final int THRESHOLD = 1000;
  private static final int RECORDS = 120;
  private static final int KEYS = 6;
  private static final int STREAM_THREADS = 1;

  /** Sizes across the threshold: two of three large. */
  static int size(int seq) {
    return seq % 3 == 2 ? 300 : 1500 + (seq % 7) * 400;
  }

  @Test
  void sinkCheckInsArePipelinedInOrderAndInternalTopicsKeepTheSerdesRefs() throws Exception {
    EmbeddedKafka kafka = Servers.kafka();
    String bucket = Servers.s3().createBucket(Servers.unique("pipelined"));
    String app = Servers.unique("pipelined-app");
    String in = Servers.unique("in");
    String sink = Servers.unique("sink");
    kafka.createTopic(in, 3);
    kafka.createTopic(sink, 3);
    try (FaultProxy proxy = FaultProxy.inFrontOf(Servers.s3())) {
      proxy.inject(Fault.hang(Duration.ofMillis(50)), "PUT");
      Map<String, Object> cc = Servers.oneStore(proxy, bucket);
      cc.put("claimcheck.threshold.bytes", THRESHOLD);
      produceInput(kafka, in, RECORDS, seq -> "k" + (seq % KEYS), StreamsPipelinedCheckInIT::size);

      List<Producer<byte[], byte[]>> producers = new CopyOnWriteArrayList<>();
      ClaimCheckClientSupplier real = new ClaimCheckClientSupplier();
      Properties props = streamsProps(kafka, app, cc);
      try (KafkaStreams streams =
          new KafkaStreams(
              PipelinedStreamsApp.topology(in, sink, true),
              props,
              new CapturingSupplier(real, producers))) {
        streams.start();
        List<ConsumerRecord<String, byte[]>> got = read(kafka, sink, RECORDS, false);
        assertThat(got).hasSize(RECORDS);
        assertSinkInOrderAndRedeemed(got, cc, StreamsPipelinedCheckInIT::size);

        assertThat(producers).isNotEmpty().allMatch(p -> p instanceof ClaimCheckProducer);
        long large = 0;
        for (int seq = 0; seq < RECORDS; seq++) {
          large += size(seq) >= THRESHOLD ? 1 : 0;
        }
        // Every one, the stream thread's first included: its main consumer binds the thread to
        // the pipelined producer at its first poll, before the first record is serialized.
        assertThat(claimedByProducers(producers))
            .as("the sink's large values were checked in by the producer, not the stream thread")
            .isEqualTo(large);

        // repartition and changelog: what the serde wrote (refs, marked), untouched by the producer
        for (String internal : List.of(app + "-rekeyed-repartition", app + "-latest-changelog")) {
          List<ConsumerRecord<String, byte[]>> raw = read(kafka, internal, 1, false);
          assertThat(raw).as(internal).isNotEmpty();
          for (ConsumerRecord<String, byte[]> r : raw) {
            assertThat(r.headers().lastHeader(PendingCheckIns.HEADER)).isNull();
          }
          // the store's changelog is written without the serializer's headers: the bytes decide
          assertThat(raw)
              .as(internal + ": large values are refs")
              .anyMatch(r -> RefFields.startsWithMagic(r.value()));
          for (ConsumerRecord<String, byte[]> r : raw) {
            if (RefFields.startsWithMagic(r.value())) {
              assertThat(RefCodec.decode(r.value())).isNotNull();
            } else {
              assertThat(r.value().length).as("inline, so small").isLessThan(THRESHOLD);
            }
          }
        }
      }
    }
  }

  /**
   * At least once, the first record a stream thread processes goes straight to the sink: it is
   * serialized before the thread's producer has seen a send. Its value is checked in by the
   * pipelined producer all the same (it was the serde's synchronous PUT on the stream thread).
   */
  @Test
  void aStreamThreadsFirstLargeValueIsCheckedInByThePipelinedProducerToo() throws Exception {
    EmbeddedKafka kafka = Servers.kafka();
    String bucket = Servers.s3().createBucket(Servers.unique("first-value"));
    String app = Servers.unique("first-value-app");
    String in = Servers.unique("in");
    String sink = Servers.unique("sink");
    kafka.createTopic(in, 1);
    kafka.createTopic(sink, 1);
    int records = 10;
    List<Producer<byte[], byte[]>> producers = new CopyOnWriteArrayList<>();
    try (FaultProxy proxy = FaultProxy.inFrontOf(Servers.s3());
        KafkaStreams streams =
            new KafkaStreams(
                PipelinedStreamsApp.topology(in, sink, false),
                streamsProps(kafka, app, firstValueStore(proxy, bucket)),
                new CapturingSupplier(new ClaimCheckClientSupplier(), producers))) {
      Map<String, Object> cc = firstValueStore(proxy, bucket);
      produceInput(kafka, in, records, seq -> "k" + seq, seq -> 2000); // every value large
      streams.start();
      List<ConsumerRecord<String, byte[]>> got = read(kafka, sink, records, false);
      assertThat(got).hasSize(records);
      assertSinkInOrderAndRedeemed(got, cc, seq -> 2000);
      assertThat(claimedByProducers(producers))
          .as("large sink values the pipelined producer checked in, the first one included")
          .isEqualTo(records);
    }
  }

  private static Map<String, Object> firstValueStore(FaultProxy proxy, String bucket) {
    Map<String, Object> cc = Servers.oneStore(proxy, bucket);
    cc.put("claimcheck.threshold.bytes", THRESHOLD);
    return cc;
  }

  /** Sums the producers' check-in counts ({@code claimcheck-producer-metrics}). */
  static long claimedByProducers(List<Producer<byte[], byte[]>> producers) {
    long n = 0;
    for (Producer<byte[], byte[]> p : producers) {
      for (var e : p.metrics().entrySet()) {
        if (e.getKey().group().equals("claimcheck-producer-metrics")
            && e.getKey().name().equals("claimcheck-claimed-total")) {
          n += ((Number) e.getValue().metricValue()).longValue();
        }
      }
    }
    return n;
  }

  /**
   * Per partition, each key's sequence numbers rise; every value redeems to what mapValues made.
   */
  static void assertSinkInOrderAndRedeemed(
      List<ConsumerRecord<String, byte[]>> got, Map<String, Object> cc, IntToInt size) {
    Map<String, Integer> last = new HashMap<>();
    try (ClaimCheckDeserializer<byte[]> d = new ClaimCheckDeserializer<>()) {
      d.configure(cc, false);
      for (ConsumerRecord<String, byte[]> r : got) {
        assertThat(r.headers().lastHeader(PendingCheckIns.HEADER)).isNull();
        boolean marked = r.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER) != null;
        byte[] v = d.deserialize(r.topic(), r.headers(), r.value());
        int seq = PipelinedStreamsApp.seq(v);
        assertThat(marked)
            .as("seq %d is a ref iff large", seq)
            .isEqualTo(size.apply(seq) >= THRESHOLD);
        assertThat(v)
            .isEqualTo(PipelinedStreamsApp.mapped(PipelinedStreamsApp.value(seq, size.apply(seq))));
        String lane = r.partition() + "/" + r.key();
        Integer before = last.put(lane, seq);
        assertThat(before == null || before < seq)
            .as("key %s: seq %d after %s", r.key(), seq, before)
            .isTrue();
      }
    }
  }

  static Properties streamsProps(EmbeddedKafka kafka, String app, Map<String, Object> cc)
      throws java.io.IOException {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(app).toString());
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, STREAM_THREADS);
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    props.put(
        StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG,
        "org.apache.kafka.common.serialization.Serdes$StringSerde");
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
    props.putAll(cc);
    return props;
  }

  interface IntToString {
    String apply(int i);
  }

  interface IntToInt {
    int apply(int i);
  }

  /** Sends seq {@code from}..{@code from+n-1} to {@code in}: inline values, String keys. */
  static void produceInput(
      EmbeddedKafka kafka, String in, int from, int n, IntToString key, IntToInt size) {
    Map<String, Object> m = new HashMap<>();
    m.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    m.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, byte[]> p =
        new KafkaProducer<>(m, new StringSerializer(), new ByteArraySerializer())) {
      for (int seq = from; seq < from + n; seq++) {
        p.send(
            new ProducerRecord<>(
                in, key.apply(seq), PipelinedStreamsApp.value(seq, size.apply(seq))));
      }
      p.flush();
    }
  }

  static void produceInput(EmbeddedKafka kafka, String in, int n, IntToString key, IntToInt size) {
    produceInput(kafka, in, 0, n, key, size);
  }

  /** Reads {@code topic} from the start until {@code atLeast} records (or 90 s), raw values. */
  static List<ConsumerRecord<String, byte[]>> read(
      EmbeddedKafka kafka, String topic, int atLeast, boolean readCommitted) {
    List<ConsumerRecord<String, byte[]>> got = new ArrayList<>();
    Map<String, Object> m = new HashMap<>();
    m.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    m.put(ConsumerConfig.GROUP_ID_CONFIG, Servers.unique("reader"));
    m.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    m.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        readCommitted ? "read_committed" : "read_uncommitted");
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(m, new StringDeserializer(), new ByteArrayDeserializer())) {
      c.subscribe(List.of(topic));
      long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      long quiet = 0;
      while (System.nanoTime() < until) {
        int before = got.size();
        c.poll(Duration.ofMillis(300)).forEach(got::add);
        if (got.size() >= atLeast) {
          quiet = got.size() == before ? quiet + 1 : 0;
          if (quiet >= 3) { // three empty polls once enough arrived: nothing more is coming
            break;
          }
        }
      }
    }
    return got;
  }
}
