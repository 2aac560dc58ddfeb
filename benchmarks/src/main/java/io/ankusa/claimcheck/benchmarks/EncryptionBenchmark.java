package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.ClaimStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Envelope encryption on vs off (issue 19): check-in and redeem throughput through the facade over
 * an in-memory store (so the cost measured is the client's: compression, sealing, checksums,
 * decryption; the store's I/O is the same either way), at 256 KiB, 1 MiB and 16 MiB, with the
 * reader's cache off so every redeem reads, checks and decrypts. Goal: on/off at least 0.9x at 1
 * MiB.
 *
 * <p>Each check-in iteration writes into a fresh store (its packs dropped with it), so 16 MiB
 * check-ins do not fill the heap. Values are half random, half repeated text (zstd compresses them
 * about 2:1), as a payload is.
 *
 * <p>Run on an idle machine: {@code java -jar benchmarks/target/benchmarks.jar EncryptionBenchmark
 * -prof gc} (and {@code -p size=1048576} for one cell); ratio = score(local) / score(none) per size
 * and operation.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class EncryptionBenchmark {

  @Param({"262144", "1048576", "16777216"})
  public int size;

  @Param({"none", "local"})
  public String kek;

  @Param({"zstd"})
  public String codec;

  private Path keyFile;
  private byte[] value;
  private String writerStore;
  private ClaimCheck writer;
  private ClaimCheck reader;
  private ClaimRef ref;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    keyFile = Files.createTempFile("claimcheck-bench", ".key");
    Files.writeString(keyFile, LocalKekProvider.newKeyFile());
    value = new byte[size];
    Random r = new Random(size);
    r.nextBytes(value);
    byte[] text = "claim check payload, compressible half; ".getBytes();
    for (int i = size / 2; i < size; i++) {
      value[i] = text[i % text.length];
    }
    reader = ClaimCheck.open(config("bench-redeem-" + UUID.randomUUID()));
    ref = reader.checkIn(value);
  }

  @Setup(Level.Iteration)
  public void freshWriter() {
    writerStore = "bench-checkin-" + UUID.randomUUID();
    writer = ClaimCheck.open(config(writerStore));
  }

  /** Closes the writer and deletes what it wrote (a memory store outlives its handles). */
  @TearDown(Level.Iteration)
  public void dropWriter() {
    writer.close();
    Duration t = Duration.ofSeconds(30);
    try (ClaimStore s = new ClaimCheckConfig(config(writerStore)).stores().get(0).open()) {
      String next = null;
      do {
        ClaimStore.ListPage page = s.list("", next, t).join();
        s.deleteAll(page.objects().stream().map(ClaimStore.StoredObject::key).toList(), t).join();
        next = page.continuation();
      } while (next != null);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    reader.close();
    Files.deleteIfExists(keyFile);
  }

  private Map<String, Object> config(String store) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "memory:" + store);
    m.put("claimcheck.compression.type", codec);
    m.put("claimcheck.cache.max.bytes", "0");
    m.put("claimcheck.encryption.kek", kek.equals("none") ? "none" : "local:" + keyFile);
    return m;
  }

  @Benchmark
  public ClaimRef checkIn() {
    return writer.checkIn(value);
  }

  @Benchmark
  public byte[] redeem() {
    return reader.redeem(ref, reader.ticker().read() + TimeUnit.SECONDS.toNanos(30)).join();
  }
}
