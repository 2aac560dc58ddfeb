package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What an inline (below-threshold) value costs through our serde against Kafka's plain byte-array
 * serde (issue 8, section 2: at most 1.05×): a 1 KiB value, serialized with fresh record headers
 * (as a producer passes them) and deserialized with them (unmarked) and without (the bytes are then
 * checked for a ref frame). Configured through config keys only, on a memory store (nothing is
 * checked in: every value is below the 256 KiB threshold).
 *
 * <p>The {@code Traced} variants carry three tracing headers ({@code traceparent}, {@code
 * tracestate}, {@code baggage}), as production records do, so the marker lookup scans past them.
 * The {@code Buffer} variants call {@code deserialize(topic, headers, ByteBuffer)}, which is what a
 * {@code KafkaConsumer} (kafka-clients 3.x and 4.x) calls: both serdes copy the value out of the
 * fetch buffer there, the plain one in {@code Deserializer}'s default method.
 *
 * <pre>
 *   java -jar benchmarks/target/benchmarks.jar InlineBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class InlineBenchmark {

  private final byte[] value = new byte[1024];
  private final ByteArraySerializer plainSerializer = new ByteArraySerializer();
  private final ByteArrayDeserializer plainDeserializer = new ByteArrayDeserializer();
  private final ClaimCheckSerializer<byte[]> serializer = new ClaimCheckSerializer<>();
  private final ClaimCheckDeserializer<byte[]> deserializer = new ClaimCheckDeserializer<>();
  private final Headers received = NewHeaders.create();
  private final Headers traced = NewHeaders.create();
  private final ByteBuffer buffer = ByteBuffer.wrap(value);

  @Setup
  public void setUp() {
    new Random(1).nextBytes(value);
    traced.add("traceparent", ascii("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
    traced.add("tracestate", ascii("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"));
    traced.add("baggage", ascii("userId=alice,serverNode=DF%2028,isProduction=false"));
    Map<String, Object> config = Map.of("claimcheck.stores", "memory:inline-" + UUID.randomUUID());
    serializer.configure(config, false);
    deserializer.configure(config, false);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @TearDown
  public void tearDown() {
    serializer.close();
    deserializer.close();
  }

  @Benchmark
  public byte[] plainSerialize() {
    return plainSerializer.serialize("t", NewHeaders.create(), value);
  }

  @Benchmark
  public byte[] oursSerialize() {
    return serializer.serialize("t", NewHeaders.create(), value);
  }

  @Benchmark
  public byte[] plainDeserializeWithHeaders() {
    return plainDeserializer.deserialize("t", received, value);
  }

  @Benchmark
  public byte[] oursDeserializeWithHeaders() {
    return deserializer.deserialize("t", received, value);
  }

  @Benchmark
  public byte[] plainDeserializeNoHeaders() {
    return plainDeserializer.deserialize("t", value);
  }

  @Benchmark
  public byte[] oursDeserializeNoHeaders() {
    return deserializer.deserialize("t", value);
  }

  @Benchmark
  public byte[] plainSerializeTraced() {
    return plainSerializer.serialize("t", traced, value);
  }

  @Benchmark
  public byte[] oursSerializeTraced() {
    return serializer.serialize("t", traced, value);
  }

  @Benchmark
  public byte[] plainDeserializeTraced() {
    return plainDeserializer.deserialize("t", traced, value);
  }

  @Benchmark
  public byte[] oursDeserializeTraced() {
    return deserializer.deserialize("t", traced, value);
  }

  @Benchmark
  public byte[] plainDeserializeBufferTraced() {
    return plainDeserializer.deserialize("t", traced, buffer);
  }

  @Benchmark
  public byte[] oursDeserializeBufferTraced() {
    return deserializer.deserialize("t", traced, buffer);
  }
}
