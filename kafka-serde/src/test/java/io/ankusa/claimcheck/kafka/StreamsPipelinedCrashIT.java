package io.ankusa.claimcheck.kafka;

import static io.ankusa.claimcheck.kafka.StreamsPipelinedCheckInIT.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once with pipelined check-ins: a Streams app ({@code exactly_once_v2}, {@link
 * ClaimCheckClientSupplier}) in a child JVM is killed ({@code SIGKILL}) while a transaction is open
 * — its small sink values already written to the broker, its large ones stuck in check-in behind a
 * hung store — then the app restarts here with the same state directory. A {@code read_committed}
 * consumer then sees every input record's result exactly once, none lost, and every claim it names
 * redeems byte for byte.
 */
class StreamsPipelinedCrashIT {

  private static final int FIRST = 40;
  private static final int SECOND = 40;
  private static final int BIG = 4000;
  private static final int SMALL = 200;

  @Test
  void aKillMidTransactionLosesNothingDuplicatesNothingAndCommitsNoMissingClaim() throws Exception {
    EmbeddedKafka kafka = Servers.kafka();
    String bucket = Servers.s3().createBucket(Servers.unique("crash"));
    String app = Servers.unique("crash-app");
    String in = Servers.unique("in");
    String sink = Servers.unique("sink");
    kafka.createTopic(in, 2);
    kafka.createTopic(sink, 2);
    String bigKey = keyFor(0);
    String smallKey = keyFor(1);
    // even seqs: large values of one key; odd: small values of a key on the other partition
    StreamsPipelinedCheckInIT.IntToString key = seq -> seq % 2 == 0 ? bigKey : smallKey;
    StreamsPipelinedCheckInIT.IntToInt size = seq -> seq % 2 == 0 ? BIG : SMALL;
    try (FaultProxy proxy = FaultProxy.inFrontOf(Servers.s3())) {
      Map<String, Object> cc = Servers.oneStore(proxy, bucket);
      cc.put("claimcheck.threshold.bytes", StreamsPipelinedCheckInIT.THRESHOLD);
      Properties props = StreamsPipelinedCheckInIT.streamsProps(kafka, app, cc);
      props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
      props.put(
          StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, ClaimCheckClientSupplier.class.getName());
      props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);

      Process child = startChild(props, in, sink);
      try {
        // 1. a committed prefix
        StreamsPipelinedCheckInIT.produceInput(kafka, in, 0, FIRST, key, size);
        assertThat(read(kafka, sink, FIRST, true)).hasSize(FIRST);

        // 2. the store hangs: the next transaction's large values cannot be checked in, so it
        // cannot commit, while its small values (their own partition) reach the broker in it
        proxy.inject(Fault.hang(Duration.ofMinutes(5)), "PUT");
        StreamsPipelinedCheckInIT.produceInput(kafka, in, FIRST, SECOND, key, size);
        List<ConsumerRecord<String, byte[]>> uncommitted =
            read(kafka, sink, FIRST + SECOND / 2, false);
        assertThat(uncommitted)
            .as("the open transaction's small values are in the log")
            .hasSizeGreaterThanOrEqualTo(FIRST + SECOND / 2);
        assertThat(read(kafka, sink, FIRST, true))
            .as("and not committed: the commit waits for the hung check-ins")
            .hasSize(FIRST);
      } finally {
        child.destroyForcibly(); // SIGKILL: no close, no commit, no abort
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      }

      // 3. restart with the store back: the open transaction is fenced and aborted, redone here
      proxy.clear();
      try (KafkaStreams streams =
          new KafkaStreams(PipelinedStreamsApp.topology(in, sink, false), props)) {
        streams.start();
        List<ConsumerRecord<String, byte[]>> committed = read(kafka, sink, FIRST + SECOND, true);
        Map<Integer, Integer> seen = new HashMap<>();
        try (ClaimCheckDeserializer<byte[]> d = new ClaimCheckDeserializer<>()) {
          d.configure(cc, false);
          for (ConsumerRecord<String, byte[]> r : committed) {
            byte[] v =
                d.deserialize(r.topic(), r.headers(), r.value()); // throws if a claim is gone
            int seq = PipelinedStreamsApp.seq(v);
            assertThat(v)
                .isEqualTo(
                    PipelinedStreamsApp.mapped(PipelinedStreamsApp.value(seq, size.apply(seq))));
            seen.merge(seq, 1, Integer::sum);
          }
        }
        assertThat(seen).as("every input exactly once").hasSize(FIRST + SECOND);
        assertThat(seen.values()).allMatch(n -> n == 1);
        StreamsPipelinedCheckInIT.assertSinkInOrderAndRedeemed(committed, cc, size::apply);
      }
    }
  }

  /** A key that the default partitioner puts on partition {@code p} of two. */
  private static String keyFor(int p) {
    for (int i = 0; ; i++) {
      String k = "key" + i;
      if (Utils.toPositive(Utils.murmur2(k.getBytes(java.nio.charset.StandardCharsets.UTF_8))) % 2
          == p) {
        return k;
      }
    }
  }

  private static Process startChild(Properties props, String in, String sink) throws Exception {
    Path dir = Files.createTempDirectory("crash-child");
    File config = dir.resolve("app.properties").toFile();
    Properties p = new Properties();
    props.forEach((k, v) -> p.setProperty(k.toString(), v.toString()));
    p.setProperty("test.in", in);
    p.setProperty("test.sink", sink);
    try (OutputStream o = new FileOutputStream(config)) {
      p.store(o, null);
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-Xmx512m",
            "-cp",
            System.getProperty("java.class.path"),
            PipelinedStreamsApp.class.getName(),
            config.getPath())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("child.log").toFile())
        .start();
  }
}
