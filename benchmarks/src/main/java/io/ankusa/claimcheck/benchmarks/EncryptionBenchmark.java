package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
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
 * Envelope encryption on vs off (issue 19): check-in and redeem throughput through the facade, of
 * whole claims and of streamed claims ({@code checkInStream}, {@code redeemStream}), at 256 KiB, 1
 * MiB and 16 MiB, with the reader's cache off so every redeem reads, checks and decrypts. {@code
 * store=memory}: an in-memory store, so the cost measured is the client's (compression, sealing,
 * checksums, decryption; the store's I/O is the same either way). {@code store=s3}: a real S3
 * server (testkit's S3Proxy, in this JVM, on loopback), so the ratio is what a user's throughput
 * sees with the store's cost included. Goal: on/off at least 0.9x at 1 MiB.
 *
 * <p>Each check-in iteration writes into a fresh store (its packs dropped with it), so 16 MiB
 * check-ins do not fill the heap. Values are half random, half repeated text (zstd compresses them
 * about 2:1), as a payload is.
 *
 * <p>Run on an idle machine: {@code java -cp benchmarks/target/benchmarks.jar
 * io.ankusa.claimcheck.benchmarks.EncryptionRatios} (prints local/none per store, size and
 * operation), or {@code java -jar benchmarks/target/benchmarks.jar EncryptionBenchmark -prof gc}
 * (and {@code -p size=1048576 -p store=memory} for one cell).
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

  @Param({"memory", "s3"})
  public String store;

  private static final String BUCKET = "bench-encryption";
  private EmbeddedS3 s3;
  private ClaimRef streamedRef;

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
    if (store.equals("s3")) {
      s3 = EmbeddedS3.start(); // closed at the trial's end: its threads would hold the fork
      s3.createBucket(BUCKET);
    }
    reader = ClaimCheck.open(config("bench-redeem-" + UUID.randomUUID()));
    ref = reader.checkIn(value);
    streamedRef = reader.checkIn(new ByteArrayInputStream(value), value.length);
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
    if (s3 != null) {
      s3.close();
    }
  }

  private Map<String, Object> config(String store) {
    Map<String, Object> m = new HashMap<>();
    if (this.store.equals("s3")) {
      m.putAll(s3.claimCheckConfig("s3://" + BUCKET + "/" + store));
    } else {
      m.put("claimcheck.stores", "memory:" + store);
    }
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

  /** A streamed check-in of the value (ref v4, or v5 sealed while streaming). */
  @Benchmark
  public ClaimRef checkInStream() throws IOException {
    return writer.checkIn(new ByteArrayInputStream(value), value.length);
  }

  /** A streamed redeem of the streamed claim, read to its end (chunked, segment by segment). */
  @Benchmark
  public long redeemStream() throws IOException {
    long n = 0;
    try (InputStream in = reader.redeemStream(streamedRef, Duration.ofSeconds(30))) {
      for (int r; (r = in.read(buffer)) >= 0; ) {
        n += r;
      }
    }
    return n;
  }

  private final byte[] buffer = new byte[64 << 10];
}
