package io.ankusa.claimcheck.kafka;

import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Repartitioned;

/**
 * The Streams app of the pipelined-check-in ITs: {@code source → mapValues → to(sink)}, plus {@code
 * repartition() → groupByKey().reduce} so the app writes repartition and changelog topics; values
 * are the default serde ({@code ClaimCheckSerde} in the tests' config). Its {@link #main} runs it
 * in a child JVM until the test kills that JVM.
 */
public final class PipelinedStreamsApp {

  private PipelinedStreamsApp() {}

  /** The test value of sequence number {@code seq}: the number, then {@code size - 4} bytes. */
  public static byte[] value(int seq, int size) {
    byte[] b = new byte[size];
    new Random(seq).nextBytes(b);
    ByteBuffer.wrap(b).putInt(seq);
    return b;
  }

  /** What {@code mapValues} makes of {@code v}: its last byte flipped. */
  public static byte[] mapped(byte[] v) {
    byte[] o = Arrays.copyOf(v, v.length);
    o[o.length - 1] ^= (byte) 0xff;
    return o;
  }

  /** The sequence number in a (mapped) value. */
  public static int seq(byte[] v) {
    return ByteBuffer.wrap(v).getInt();
  }

  /** The topology; {@code withState}: the repartition and reduce branch too. */
  public static Topology topology(String in, String sink, boolean withState) {
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, byte[]> source =
        builder.stream(in, Consumed.with(Serdes.String(), null)); // the default value serde
    source.mapValues(PipelinedStreamsApp::mapped).to(sink);
    if (withState) {
      source
          .repartition(Repartitioned.as("rekeyed"))
          .groupByKey()
          .reduce((a, b) -> b, Materialized.as("latest"));
    }
    return builder.build();
  }

  /**
   * Args: a properties file (Streams config plus {@code in} and {@code sink}); runs until killed.
   */
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    try (InputStream s = new FileInputStream(args[0])) {
      p.load(s);
    }
    String in = (String) p.remove("test.in");
    String sink = (String) p.remove("test.sink");
    KafkaStreams streams = new KafkaStreams(topology(in, sink, false), p);
    streams.start();
    System.out.println("started");
    Thread.sleep(Long.MAX_VALUE);
  }
}
