package io.ankusa.claimcheck.examples;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializationExceptionHandler;
import io.ankusa.claimcheck.kafka.ClaimCheckSerde;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The failover demo: producer -> Kafka Streams (reverses each value) -> consumer over two S3
 * stores, A then B ({@code placement=ordered}), with store A behind a {@link FaultProxy}. Midway
 * through, store A goes down, and later comes back; every value is checked byte for byte, and the
 * library's own meters say where each check-in went and what store A's breaker did.
 *
 * <p>Values go one at a time (the next is sent once the consumer has the previous one), so the
 * check-ins counted between two steps belong to one value: the producer's, then Streams'.
 */
final class FailoverDemo {

  /** Payload sizes in send order: mostly refs, a few inline values. */
  private static final int[] SIZES = {
    10, 300_000, 1 << 20, 100_000, 2 << 20,
    400_000, 1 << 20, 50_000, 3 << 20, 600_000,
    1_000, 1 << 20, 2 << 20, 500_000, 4 << 20
  };

  /** Store A goes down before value {@code DOWN_AT} and comes back before {@code UP_AT}. */
  private static final int DOWN_AT = 5;

  private static final int UP_AT = 10;

  /** One value every this often (at least): the outage and the recovery take a few seconds. */
  private static final long PACE_MS = 400;

  static final long COOLDOWN_MS = 1_000;

  static final String BUCKET_A = "demo-a";

  static final String BUCKET_B = "demo-b";

  /** The two stores, A then B, on one S3 server (A reached through the fault proxy). */
  static final String STORES = "s3://" + BUCKET_A + "/demo,s3://" + BUCKET_B + "/demo";

  /** What one run saw. */
  record Outcome(
      int sent,
      int identical,
      long outageMillis,
      long failovers,
      long breakerOpened,
      long breakerClosed,
      long checkInsA,
      long checkInsB,
      long failedCheckIns,
      long checkInsBBeforeOutage,
      long checkInsAAfterRecovery,
      int retriedPolls,
      int threadsReplaced) {}

  /**
   * What the timeline saw: values identical at the consumer, how long store A was down, and the
   * check-ins per store when it went down and when it came back.
   */
  private record Timeline(int identical, long outageNanos, long[] atDown, long[] atUp) {}

  private FailoverDemo() {}

  /** The values the demo sends, in send order: the same bytes every run. */
  static List<byte[]> values() {
    Random random = new Random(7);
    List<byte[]> values = new ArrayList<>(SIZES.length);
    for (int size : SIZES) {
      byte[] value = new byte[size];
      random.nextBytes(value);
      values.add(value);
    }
    return values;
  }

  /** The record key of the {@code index}th value (from 0): {@code v01}, {@code v02}, ... */
  static String key(int index) {
    return String.format("v%02d", index + 1);
  }

  /** Stores are named A, B, ... in the output. */
  static String storeName(int index) {
    return String.valueOf((char) ('A' + index));
  }

  /** Runs the demo on {@code kafka} and {@code s3}, on topics and buckets of its own. */
  static Outcome run(EmbeddedKafka kafka, EmbeddedS3 s3) throws Exception {
    kafka.createTopic("demo-in", 3);
    kafka.createTopic("demo-out", 3);
    StoreMeters meters = new StoreMeters();
    AtomicInteger replaced = new AtomicInteger();
    try (FaultProxy proxyA = FaultProxy.inFrontOf(s3)) {
      Map<String, Object> claimcheck = settings(s3, proxyA, meters);
      banner();
      try (ClaimCheckSerde<byte[]> serde = new ClaimCheckSerde<>();
          KafkaStreams streams = streams(kafka, claimcheck, serde, replaced);
          Pipe pipe = Pipe.open(kafka, claimcheck)) {
        streams.start();
        pipe.awaitReady(streams);
        Timeline t = timeline(pipe, proxyA, meters);
        Outcome o =
            new Outcome(
                SIZES.length,
                t.identical(),
                TimeUnit.NANOSECONDS.toMillis(t.outageNanos()),
                t.atUp()[1] - t.atDown()[1],
                meters.breaker(0, "opened"),
                meters.breaker(0, "closed"),
                meters.checkIns(0),
                meters.checkIns(1),
                meters.failedCheckIns(),
                t.atDown()[1],
                meters.checkIns(0) - t.atUp()[0],
                pipe.retriedPolls(),
                replaced.get());
        summary(o);
        return o;
      }
    }
  }

  private static Timeline timeline(Pipe pipe, FaultProxy proxyA, StoreMeters meters)
      throws Exception {
    System.out.printf(
        "%3s  %-5s %11s  %-10s  %-8s %-8s  %s%n",
        "#", "key", "size", "in Kafka", "producer", "Streams", "consumer");
    List<byte[]> values = values();
    int identical = 0;
    long downAt = 0;
    long outageNanos = 0;
    long[] atDown = null;
    long[] atUp = null;
    for (int i = 0; i < SIZES.length; i++) {
      long step = System.nanoTime();
      if (i == DOWN_AT) {
        proxyA.down();
        downAt = System.nanoTime();
        atDown = meters.snapshot(2);
        System.out.println("     ~~ store A goes down (its endpoint refuses connections) ~~");
      } else if (i == UP_AT) {
        proxyA.up();
        outageNanos = System.nanoTime() - downAt;
        atUp = meters.snapshot(2);
        System.out.printf("     ~~ store A is back after %.1f s ~~%n", outageNanos / 1e9);
      }
      byte[] value = values.get(i);
      String key = key(i);
      long[] before = meters.snapshot(2);
      int recordBytes = pipe.send(key, value);
      String producerStore = meters.tookSince(before);
      before = meters.snapshot(2);
      String got = pipe.awaitReversed(key, value);
      String streamsStore = meters.tookSince(before);
      identical += "identical".equals(got) ? 1 : 0;
      String wire = recordBytes == value.length ? "inline" : "ref, " + recordBytes + " B";
      System.out.printf(
          "%3d  %-5s %,9d B  %-10s  %-8s %-8s  %s%n",
          i + 1, key, value.length, wire, producerStore, streamsStore, got);
      long rest = PACE_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - step);
      if (rest > 0) {
        Thread.sleep(rest);
      }
    }
    return new Timeline(identical, outageNanos, atDown, atUp);
  }

  /** Two stores on one S3 server: A through the fault proxy, B direct; short timings. */
  private static Map<String, Object> settings(
      EmbeddedS3 s3, FaultProxy proxyA, StoreMeters meters) {
    Map<String, Object> c = new HashMap<>();
    s3.createBucket(BUCKET_A);
    s3.createBucket(BUCKET_B);
    c.put("claimcheck.stores", STORES);
    c.put("claimcheck.placement", "ordered");
    c.put("claimcheck.s3.endpoint", s3.endpoint().toString());
    c.put("claimcheck.store.0.s3.endpoint", proxyA.endpoint().toString());
    c.put("claimcheck.s3.region", s3.region());
    c.put("claimcheck.s3.path.style.access", "true");
    c.put("claimcheck.s3.access.key.id", s3.accessKey());
    c.put("claimcheck.s3.secret.access.key", s3.secretKey());
    c.put("claimcheck.threshold.bytes", String.valueOf(Demo.THRESHOLD));
    c.put("claimcheck.compression.type", "zstd");
    c.put("claimcheck.tenant", "demo");
    // Short timings, so the outage and the recovery show within seconds.
    c.put("claimcheck.store.cooldown.ms", String.valueOf(COOLDOWN_MS));
    c.put("claimcheck.s3.connect.timeout.ms", "500");
    c.put("claimcheck.store.op.deadline.ms", "5000");
    c.put("claimcheck.read.deadline.ms", "5000");
    c.put(ClaimCheck.METER_REGISTRY, meters.registry());
    return c;
  }

  private static KafkaStreams streams(
      EmbeddedKafka kafka,
      Map<String, Object> claimcheck,
      ClaimCheckSerde<byte[]> serde,
      AtomicInteger replaced)
      throws Exception {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "claimcheck-demo");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("demo-streams").toString());
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    props.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        ClaimCheckDeserializationExceptionHandler.class);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 0);
    StreamsBuilder builder = new StreamsBuilder();
    serde.configure(claimcheck, false);
    builder.stream("demo-in", Consumed.with(Serdes.String(), serde))
        .mapValues(Pipe::reverse)
        .to("demo-out", Produced.with(Serdes.String(), serde));
    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    // A claim that may still be readable fails the thread (never skipped): resume on a new one.
    streams.setUncaughtExceptionHandler(
        e -> {
          replaced.incrementAndGet();
          return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    return streams;
  }

  private static void banner() {
    System.out.printf(
        "%n--- producer -> Kafka Streams (reverses each value) -> consumer ---%n"
            + "stores: A, then B (placement=ordered), A behind a fault proxy; breaker cooldown %.1f s%n"
            + "values of 256 KiB and more travel as refs; producer / Streams: the store that took the"
            + "%nvalue's check-in (- = inline, nothing to check in)%n%n",
        COOLDOWN_MS / 1e3);
  }

  private static void summary(Outcome o) {
    System.out.printf(
        "%nwhat happened (the library's Micrometer meters claimcheck.checkin and"
            + " claimcheck.store.breaker):%n");
    String row = "  %-34s %s%n";
    System.out.printf(row, "store A down for", String.format("%.1f s", o.outageMillis() / 1e3));
    System.out.printf(
        row,
        "check-ins that failed over to B",
        o.failovers()
            + " while A was down   (check-ins no store took: "
            + o.failedCheckIns()
            + ")");
    System.out.printf(
        row,
        "breaker of store A",
        "opened " + o.breakerOpened() + "x, closed " + o.breakerClosed() + "x");
    System.out.printf(
        row,
        "check-ins per store",
        "A "
            + o.checkInsA()
            + ", B "
            + o.checkInsB()
            + "   (A after it came back: "
            + o.checkInsAAfterRecovery()
            + ")");
    System.out.printf(row, "consumer polls retried", o.retriedPolls());
    System.out.printf(row, "Streams threads replaced", o.threadsReplaced());
    System.out.printf(
        "%d/%d values identical (producer -> Streams -> consumer)%n", o.identical(), o.sent());
  }
}
