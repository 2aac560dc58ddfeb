package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchStats;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;

/**
 * A real Kafka Streams application built with {@link ClaimCheckClientSupplier} against the embedded
 * broker and S3 server: its main consumer is the prefetching one, configured from the top-level
 * {@code claimcheck.*} keys, and a processor that redeems each ref through a claim check opened
 * with the same keys gets every value byte-identical with one store GET per ref.
 */
class ClaimCheckClientSupplierIT {

  private static final int REFS = 50;

  private static byte[] value(int i) {
    byte[] b = new byte[3000];
    new Random(i).nextBytes(b);
    return b;
  }

  /** Records the consumers the real supplier hands out. */
  private static final class Capturing implements KafkaClientSupplier {
    final ClaimCheckClientSupplier supplier = new ClaimCheckClientSupplier();
    final List<Consumer<byte[], byte[]>> mainConsumers = new CopyOnWriteArrayList<>();

    @Override
    public org.apache.kafka.clients.admin.Admin getAdmin(Map<String, Object> config) {
      return supplier.getAdmin(config);
    }

    @Override
    public org.apache.kafka.clients.producer.Producer<byte[], byte[]> getProducer(
        Map<String, Object> config) {
      return supplier.getProducer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
      Consumer<byte[], byte[]> c = supplier.getConsumer(config);
      mainConsumers.add(c);
      return c;
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
      return supplier.getRestoreConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
      return supplier.getGlobalConsumer(config);
    }
  }

  @Test
  void aStreamsAppPrefetchesThroughTheSupplierAndRedeemsEveryValue() throws Exception {
    EmbeddedKafka kafka = EmbeddedKafka.shared();
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("streams-prefetch-" + new Random().nextInt(1_000_000));
    String in = "in-" + UUID.randomUUID();
    String out = "out-" + UUID.randomUUID();
    kafka.createTopic(in, 1);
    kafka.createTopic(out, 1);
    try (FaultProxy proxy = FaultProxy.inFrontOf(s3)) {
      Map<String, Object> cc = claimCheckConfig(s3, proxy, bucket);

      produceRefs(kafka, in, cc);
      proxy.resetCounts();
      Properties props = streamsProps(kafka, cc);

      StreamsBuilder builder = new StreamsBuilder();
      Capturing supplier = new Capturing();
      try (ClaimCheck processorSide = ClaimCheck.open(cc)) {
        builder.stream(in, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
            .mapValues(
                v ->
                    processorSide
                        .redeem(
                            RefCodec.decode(v),
                            processorSide.ticker().read() + Duration.ofSeconds(30).toNanos())
                        .join())
            .to(out, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        try (KafkaStreams streams = new KafkaStreams(builder.build(), props, supplier)) {
          streams.start();
          List<ConsumerRecord<byte[], byte[]>> got = readOut(kafka, out);
          assertThat(got).hasSize(REFS);
          for (ConsumerRecord<byte[], byte[]> r : got) {
            assertThat(r.value()).isEqualTo(value(r.key()[0]));
          }
          assertThat(supplier.mainConsumers)
              .hasSize(1)
              .allMatch(c -> c instanceof PrefetchingConsumer);
          PrefetchStats stats = ((PrefetchingConsumer) supplier.mainConsumers.get(0)).stats();
          assertThat(stats.started()).isEqualTo(REFS);
          assertThat(stats.failed()).isZero();
          assertThat(proxy.requestCount("GET")).isEqualTo(REFS);
        }
      }
    }
  }

  @Test
  void aStreamsAppPrefetchesWithConfigAlone() throws Exception {
    EmbeddedKafka kafka = EmbeddedKafka.shared();
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("streams-prefetch-" + new Random().nextInt(1_000_000));
    String in = "in-" + UUID.randomUUID();
    String out = "out-" + UUID.randomUUID();
    kafka.createTopic(in, 1);
    kafka.createTopic(out, 1);
    try (FaultProxy proxy = FaultProxy.inFrontOf(s3)) {
      Map<String, Object> cc = claimCheckConfig(s3, proxy, bucket);
      produceRefs(kafka, in, cc);
      proxy.resetCounts();
      Properties props = streamsProps(kafka, cc);
      // No supplier in code: Streams reads it from its config (default.client.supplier).
      props.put(
          StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, ClaimCheckClientSupplier.class.getName());

      // The topology passes the refs through untouched: nothing but a prefetch reads the store.
      StreamsBuilder builder = new StreamsBuilder();
      builder.stream(in, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
          .to(out, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
      try (KafkaStreams streams = new KafkaStreams(builder.build(), props)) {
        streams.start();
        assertThat(readOut(kafka, out)).hasSize(REFS);
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (proxy.requestCount("GET") < REFS && System.nanoTime() < until) {
          Thread.sleep(50); // the prefetch is asynchronous: its GETs may trail the records
        }
        assertThat(proxy.requestCount("GET")).as("one prefetch GET per ref").isEqualTo(REFS);
      }
    }
  }

  private static Map<String, Object> claimCheckConfig(
      EmbeddedS3 s3, FaultProxy proxy, String bucket) {
    return s3.claimCheckConfig("s3://" + bucket, proxy.endpoint());
  }

  /** Checks REFS values in and sends their refs (marked) to partition 0 of {@code in}. */
  private static void produceRefs(EmbeddedKafka kafka, String in, Map<String, Object> cc) {
    try (ClaimCheck producerSide = ClaimCheck.open(cc);
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
      for (int i = 0; i < REFS; i++) {
        ClaimRef ref = producerSide.checkIn(value(i));
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(in, 0, new byte[] {(byte) i}, RefCodec.encode(ref));
        ClaimCheckHeaders.mark(r.headers(), false);
        producer.send(r);
      }
      producer.flush();
    }
  }

  private static Properties streamsProps(EmbeddedKafka kafka, Map<String, Object> cc)
      throws java.io.IOException {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "prefetch-" + UUID.randomUUID());
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(
        StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("streams-prefetch").toString());
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 500);
    props.putAll(cc); // top level: the serde and the supplier's consumer both see them
    return props;
  }

  private static List<ConsumerRecord<byte[], byte[]>> readOut(EmbeddedKafka kafka, String out) {
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      c.subscribe(List.of(out));
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (got.size() < REFS && System.nanoTime() < until) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
    }
    return got;
  }
}
