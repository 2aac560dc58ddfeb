package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.kafka.ClaimCheckClientSupplier;
import io.ankusa.claimcheck.kafka.ClaimCheckSerde;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Kafka Streams, {@code source → mapValues → to}, with today's check-in (the serde's synchronous
 * PUT on the stream thread: {@code ClaimCheckClientSupplier} with {@code
 * claimcheck.streams.pipelined=false}) against the pipelined one (the supplier's producer checks
 * the sink's values in, {@code claimcheck.streams.pipelined=true}). An embedded KRaft broker and
 * S3Proxy behind a fault proxy that holds every PUT for the given latency. The source holds N small
 * records (a sequence number) on 4 partitions; {@code mapValues} makes each a value of the given
 * size, so every sink value is checked in. One stream thread, at-least-once. A pass is a new
 * application reading the source from the start; its rate is taken between the first and the last
 * sink record a consumer sees (start-up and rebalance left out). A warm-up pair, then the rounds in
 * balanced order (A B B A), median of each.
 *
 * <pre>
 *   mvn -B -pl benchmarks -am package -DskipTests
 *   java -Xmx4g -cp benchmarks/target/benchmarks.jar \
 *       io.ankusa.claimcheck.benchmarks.StreamsPipelineHarness [records=200] [latencyMs=20] \
 *       [valueBytes=1048576] [rounds=2]
 * </pre>
 */
public final class StreamsPipelineHarness {

  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final FaultProxy proxy;
  private final Map<String, Object> claimCheck = new HashMap<>();
  private final String source = "streams-source-" + UUID.randomUUID();
  private final int records;
  private final byte[][] values = new byte[8][];

  private StreamsPipelineHarness(int records, int valueBytes, int latencyMs) {
    this.records = records;
    for (int i = 0; i < values.length; i++) {
      values[i] = new byte[valueBytes];
      new Random(i).nextBytes(values[i]);
    }
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("streams-" + new Random().nextInt(1_000_000));
    proxy = FaultProxy.inFrontOf(s3);
    if (latencyMs > 0) {
      proxy.inject(Fault.hang(Duration.ofMillis(latencyMs)), "PUT");
    }
    claimCheck.putAll(s3.claimCheckConfig("s3://" + bucket, proxy.endpoint()));
    kafka.createTopic(source, 4);
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<Integer, Integer> producer =
        new KafkaProducer<>(p, new IntegerSerializer(), new IntegerSerializer())) {
      for (int i = 0; i < records; i++) {
        producer.send(new ProducerRecord<>(source, i % 16, i));
      }
      producer.flush();
    }
  }

  public static void main(String[] args) throws Exception {
    int records = arg(args, 0, 200);
    int latencyMs = arg(args, 1, 20);
    int valueBytes = arg(args, 2, 1 << 20);
    int rounds = arg(args, 3, 2);
    StreamsPipelineHarness h = new StreamsPipelineHarness(records, valueBytes, latencyMs);
    System.out.printf(
        "Streams source -> mapValues -> to: %d records of %d B, %d ms per PUT, %d round(s);"
            + " %d cores, Java %s%n",
        records,
        valueBytes,
        latencyMs,
        rounds,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    List<Double> plain = new ArrayList<>();
    List<Double> pipelined = new ArrayList<>();
    try {
      h.pass("warm-up today", false);
      h.pass("warm-up pipelined", true);
      for (int round = 1; round <= rounds; round++) {
        plain.add(h.pass("round " + round + " A today", false));
        pipelined.add(h.pass("round " + round + " B pipelined", true));
        pipelined.add(h.pass("round " + round + " B pipelined", true));
        plain.add(h.pass("round " + round + " A today", false));
      }
      double a = median(plain);
      double b = median(pipelined);
      System.out.printf(
          "median: today %.1f records/s, pipelined %.1f records/s, ratio %.2fx%n", a, b, b / a);
    } finally {
      h.proxy.close();
      EmbeddedS3.shared().close();
      EmbeddedKafka.shared().close();
    }
    System.exit(0);
  }

  /** One pass; returns records/s between the first and the last sink record. */
  private double pass(String name, boolean pipelined) throws Exception {
    String app = "streams-harness-" + UUID.randomUUID();
    String sink = app + "-out";
    kafka.createTopic(sink, 4);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(app).toString());
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, ClaimCheckSerde.class.getName());
    props.put(
        StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, ClaimCheckClientSupplier.class.getName());
    props.put("claimcheck.streams.pipelined", Boolean.toString(pipelined));
    props.putAll(claimCheck);
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(source, Consumed.with(Serdes.Integer(), Serdes.Integer()))
        .mapValues(this::valueOf)
        .to(sink, Produced.with(Serdes.Integer(), null));
    long first;
    long last;
    try (KafkaStreams streams = new KafkaStreams(builder.build(), props);
        KafkaConsumer<Integer, byte[]> c = sinkReader()) {
      c.subscribe(List.of(sink));
      streams.start();
      int seen = 0;
      first = 0;
      last = 0;
      long until = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      while (seen < records && System.nanoTime() < until) {
        for (ConsumerRecord<Integer, byte[]> r : c.poll(Duration.ofMillis(50))) {
          long now = System.nanoTime();
          if (seen++ == 0) {
            first = now;
          }
          last = now;
        }
      }
      if (seen < records) {
        throw new IllegalStateException(name + ": only " + seen + " of " + records + " arrived");
      }
      streams.close(Duration.ofSeconds(60));
    }
    double rate = (records - 1) / ((last - first) / 1e9);
    System.out.printf("%-28s %8.1f records/s%n", name, rate);
    return rate;
  }

  private byte[] valueOf(int seq) {
    byte[] v = Arrays.copyOf(values[seq % values.length], values[0].length);
    ByteBuffer.wrap(v).putInt(seq);
    return v;
  }

  private KafkaConsumer<Integer, byte[]> sinkReader() {
    Map<String, Object> m = new HashMap<>();
    m.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    m.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
    m.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(m, new IntegerDeserializer(), new ByteArrayDeserializer());
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  private static int arg(String[] args, int i, int otherwise) {
    return args.length > i ? Integer.parseInt(args[i]) : otherwise;
  }
}
