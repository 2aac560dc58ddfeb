package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.ref.Codec;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What encoding a one-claim pack costs the serializer's thread (the claim's CRC32C, the header and
 * index; the claim's own array is the pack's second part, not copied) against copying the value
 * alone ({@code Arrays.copyOf}, what a raw client's {@code RequestBody.fromBytes} does).
 *
 * <pre>
 *   java -jar benchmarks/target/benchmarks.jar PackEncodeBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 6, time = 2)
public class PackEncodeBenchmark {

  @Param({"262144", "1048576"})
  int size;

  private List<PackEntryInput> claims;
  private byte[] value;

  @Setup
  public void setUp() {
    value = new byte[size];
    new Random(size).nextBytes(value);
    claims = List.of(new PackEntryInput(value, Codec.NONE));
  }

  @Benchmark
  public EncodedPack encodeOneClaim() {
    return Packs.encode(claims);
  }

  @Benchmark
  public byte[] copyOnly() {
    return Arrays.copyOf(value, value.length);
  }
}
