package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 200 cycles of open, configure, use and close of everything a user opens — {@link
 * ClaimCheckSerializer}, {@link ClaimCheckDeserializer}, {@code CheckIn$Value} and {@code
 * Redeem$Value} — against a real S3 server (S3Proxy) leave threads, Netty event loops and direct
 * memory where they were after the first cycle.
 *
 * <p>The baseline is taken after one warm-up cycle, because some JVM-wide threads start lazily once
 * and stay by design: the handle cleaner ({@code claimcheck-cleaner}), the reader's timer, the
 * JDK's own (e.g. the HTTP keep-alive or the Cleaner of direct buffers). Each cycle closes the last
 * handle on the store set, so its S3 client and Netty event loop shut down (asynchronously, within
 * a few seconds): the figures are read once they settle, waiting at most {@link #SETTLE_MS}.
 */
class OpenCloseLeakIT {

  private static final int CYCLES = 200;
  private static final PooledByteBufAllocatorMetric NETTY_POOL =
      PooledByteBufAllocator.DEFAULT.metric();
  private static final long SETTLE_MS = 20_000;
  private static final int VALUE_BYTES = 64 * 1024;

  /** Netty event-loop threads: ours ({@code claimcheck-s3-*}) and any the SDK or Netty name. */
  private static final Pattern NETTY =
      Pattern.compile(
          "(?i).*(claimcheck-s3|eventloop|nioEventLoopGroup|epoll|globalEventExecutor).*");

  /**
   * Threads started meanwhile that are not ours to judge: S3Proxy's Jetty pool ({@code qtp…}) grows
   * and shrinks with the connections our clients open; JUnit / surefire and the JDK's own.
   */
  private static final Pattern FIXTURE =
      Pattern.compile("qtp.*|Scheduler-.*|surefire.*|Attach Listener");

  /**
   * Direct memory outside Netty's pool may differ from the baseline by this much: the JDK keeps a
   * small per-thread cache of temporary direct buffers for socket I/O (sun.nio.ch.Util, up to 16
   * per thread) that threads alive at both points (S3Proxy's) may fill differently. A leak of one
   * buffer per cycle would show as 200.
   */
  private static final int DIRECT_COUNT_SLACK = 16;

  private static final long DIRECT_BYTES_SLACK = 1L << 20;

  /**
   * Netty's pooled allocator is one per JVM, shared by every client: it keeps the chunks it
   * allocated (one per arena at least) for the next client, so its size may grow by up to one chunk
   * per direct arena after the warm-up, however many cycles run. What would be a leak there —
   * buffers never released — is counted apart: active allocations, which must be back at baseline.
   */
  private static final long POOL_SLACK =
      (long) NETTY_POOL.numDirectArenas() * NETTY_POOL.chunkSize();

  private static final ByteArrayOutputStream STDERR = new ByteArrayOutputStream();
  private static EmbeddedS3 s3;
  private static Map<String, Object> config;

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.start();
    config = s3.claimCheckConfig("s3://" + s3.createBucket("leak") + "/cycles");
    config.put("claimcheck.threshold.bytes", "1024");
    config.put("claimcheck.compression.type", "zstd");
  }

  @AfterAll
  static void stop() {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void openUseCloseCyclesLeaveThreadsEventLoopsAndDirectMemoryAtBaseline() throws Exception {
    Figures open = cycle(0);
    Figures baseline = settle(null);
    PrintStream err = System.err;
    // slf4j-simple writes to System.err as it is at each call: what the cycles log is seen here.
    System.setErr(new PrintStream(new TeeStream(err, STDERR), true, StandardCharsets.UTF_8));
    try {
      for (int i = 1; i <= CYCLES; i++) {
        cycle(i);
      }
    } finally {
      System.setErr(err);
    }
    Figures after = settle(baseline);

    System.out.printf(
        "OpenCloseLeakIT: %d cycles of serializer + deserializer + CheckIn$Value +"
            + " Redeem$Value on S3 (open, configure, check in and redeem one value each, close)%n",
        CYCLES);
    System.out.printf("  %-28s %12s %12s%n", "", "after warm-up", "after " + CYCLES);
    row("threads", baseline.threads(), after.threads());
    row("Netty event-loop threads", baseline.netty(), after.netty());
    row("direct buffers (count)", baseline.directCount(), after.directCount());
    row("direct memory used (bytes)", baseline.directBytes(), after.directBytes());
    row("  of it Netty's pool (bytes)", baseline.poolBytes(), after.poolBytes());
    row("  outside Netty's pool", baseline.outsidePool(), after.outsidePool());
    row("Netty active allocations", baseline.poolActive(), after.poolActive());
    System.out.printf(
        "  while a cycle's clients were open: %d threads, %d Netty event-loop" + " threads %s%n",
        open.threads(), open.netty(), open.nettyNames());
    System.out.printf(
        "  Netty pool: %d direct arenas of %d-byte chunks%n",
        NETTY_POOL.numDirectArenas(), NETTY_POOL.chunkSize());
    List<String> errors =
        STDERR
            .toString(StandardCharsets.UTF_8)
            .lines()
            .filter(l -> l.contains("ERROR") || l.contains("Exception"))
            .toList();
    System.out.printf(
        "  error lines logged during the cycles: %d%s%n",
        errors.size(), errors.isEmpty() ? "" : ", first: " + errors.get(0));

    assertThat(open.netty())
        .as("the Netty pattern sees a cycle's event loops while open")
        .isPositive();
    assertThat(errors).as("errors logged while opening and closing").isEmpty();
    Set<String> started = after.newThreadsSince(baseline);
    System.out.printf("  threads started since warm-up and still alive: %s%n", started);
    System.out.printf(
        "  Netty event-loop threads after warm-up: %s, after %d: %s%n",
        baseline.nettyNames(), CYCLES, after.nettyNames());

    assertThat(after.netty()).as("Netty event-loop threads").isLessThanOrEqualTo(baseline.netty());
    assertThat(started.stream().filter(n -> !FIXTURE.matcher(n).matches()).toList())
        .as("threads started during the cycles and still alive (fixture threads excluded)")
        .isEmpty();
    assertThat(after.poolActive())
        .as("Netty pooled buffers not released")
        .isLessThanOrEqualTo(baseline.poolActive());
    assertThat(after.poolBytes())
        .as("Netty's pool (kept for reuse, bounded by its arenas)")
        .isLessThanOrEqualTo(baseline.poolBytes() + POOL_SLACK);
    assertThat(after.outsidePool())
        .as("direct memory outside Netty's pool")
        .isLessThanOrEqualTo(baseline.outsidePool() + DIRECT_BYTES_SLACK);
    assertThat(after.directCount())
        .as("direct buffers")
        .isLessThanOrEqualTo(
            baseline.directCount() + NETTY_POOL.numDirectArenas() + DIRECT_COUNT_SLACK);
  }

  /**
   * Opens all four, checks in and redeems one value through each path, closes all four; returns the
   * figures read while they were open.
   */
  private static Figures cycle(int i) {
    byte[] value = Wire.payload(VALUE_BYTES, i);
    ClaimCheckSerializer<byte[]> serializer = new ClaimCheckSerializer<>();
    ClaimCheckDeserializer<byte[]> deserializer = new ClaimCheckDeserializer<>();
    CheckIn.Value<SourceRecord> checkIn = new CheckIn.Value<>();
    Redeem.Value<SinkRecord> redeem = new Redeem.Value<>();
    try {
      serializer.configure(config, false);
      deserializer.configure(config, false);
      // The serde runs its store calls inline (a synchronous Apache 5 client, the default); the
      // transforms here on the asynchronous client, so a cycle opens and closes both, and the
      // Netty event loops this test watches do start.
      Map<String, Object> async = new HashMap<>(config);
      async.put("claimcheck.s3.inline.calls", "false");
      checkIn.configure(async);
      redeem.configure(async);

      RecordHeaders headers = new RecordHeaders();
      byte[] ref = serializer.serialize(Wire.TOPIC, headers, value);
      assertThat(ref.length).as("a ref, cycle %d", i).isLessThan(100);
      assertThat(deserializer.deserialize(Wire.TOPIC, headers, ref)).isEqualTo(value);

      SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));
      assertThat(((byte[]) out.value()).length).as("a ref, cycle %d", i).isLessThan(100);
      assertThat((byte[]) redeem.apply(Wire.overKafka(out)).value()).isEqualTo(value);
      return Figures.read();
    } finally {
      serializer.close();
      deserializer.close();
      checkIn.close();
      redeem.close();
    }
  }

  /**
   * Reads the figures once they settle: with no baseline, until two readings 500 ms apart agree;
   * with one, until they are back at it (or {@link #SETTLE_MS} passed). Collects garbage first, so
   * unreachable direct buffers are freed by their cleaners.
   */
  private static Figures settle(Figures baseline) throws InterruptedException {
    long until = System.nanoTime() + SETTLE_MS * 1_000_000L;
    Figures last = Figures.read();
    while (System.nanoTime() < until) {
      System.gc();
      Thread.sleep(500);
      Figures now = Figures.read();
      boolean settled = baseline == null ? now.sameCounts(last) : now.within(baseline);
      last = now;
      if (settled) {
        break;
      }
    }
    return last;
  }

  private static void row(String what, long baseline, long after) {
    System.out.printf("  %-28s %12d %12d%n", what, baseline, after);
  }

  /** One reading: live threads (by id and name), Netty's among them, and the JDK's direct pool. */
  private record Figures(
      Map<Long, String> threadNames,
      int netty,
      long directCount,
      long directBytes,
      long poolBytes,
      long poolActive) {

    static Figures read() {
      Map<Long, String> names =
          Thread.getAllStackTraces().keySet().stream()
              .filter(Thread::isAlive)
              .collect(Collectors.toMap(Thread::getId, Thread::getName, (a, b) -> a));
      int netty = (int) names.values().stream().filter(n -> NETTY.matcher(n).matches()).count();
      BufferPoolMXBean direct =
          ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
              .filter(b -> b.getName().equals("direct"))
              .findFirst()
              .orElseThrow();
      long active =
          NETTY_POOL.directArenas().stream().mapToLong(PoolArenaMetric::numActiveAllocations).sum();
      return new Figures(
          names,
          netty,
          direct.getCount(),
          direct.getMemoryUsed(),
          NETTY_POOL.usedDirectMemory(),
          active);
    }

    long outsidePool() {
      return directBytes - poolBytes;
    }

    int threads() {
      return threadNames.size();
    }

    boolean sameCounts(Figures o) {
      return threads() == o.threads()
          && netty == o.netty
          && directCount == o.directCount
          && directBytes == o.directBytes
          && poolActive == o.poolActive;
    }

    boolean within(Figures base) {
      return netty <= base.netty
          && newThreadsSince(base).stream().noneMatch(n -> !FIXTURE.matcher(n).matches())
          && poolActive <= base.poolActive
          && poolBytes <= base.poolBytes + POOL_SLACK
          && outsidePool() <= base.outsidePool() + DIRECT_BYTES_SLACK;
    }

    Set<String> newThreadsSince(Figures base) {
      return threadNames.entrySet().stream()
          .filter(e -> !base.threadNames.containsKey(e.getKey()))
          .map(Map.Entry::getValue)
          .collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    List<String> nettyNames() {
      return threadNames.values().stream()
          .filter(n -> NETTY.matcher(n).matches())
          .sorted()
          .toList();
    }
  }

  /** Writes to both streams; what the test reads is synchronized by ByteArrayOutputStream. */
  private static final class TeeStream extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    TeeStream(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }

    @Override
    public void flush() throws java.io.IOException {
      a.flush();
      b.flush();
    }
  }
}
