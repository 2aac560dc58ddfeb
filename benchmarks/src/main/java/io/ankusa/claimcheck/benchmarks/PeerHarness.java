package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Head to head with bakdata's large-message-serde (the peer), end to end and in one JVM: an
 * embedded KRaft broker, one S3 server (S3Proxy) holding two buckets, store A and store B, each
 * behind its own fault proxy. The peer's base path is store A; ours lists A then B ({@code
 * placement=ordered}: every write goes to A while A answers). Both thresholds are equal, so every
 * value is stored in A by both. The fault proxy holds every GET to A (and, when asked, every PUT)
 * for the given latency.
 *
 * <ol>
 *   <li><b>Producer</b>: each round sends and flushes the same N values with each serializer, to a
 *       fresh topic each (the first round's topics are what the consumers read).
 *   <li><b>Consumer</b>: each round reads each library's topic from the beginning three ways — the
 *       peer's deserializer, our {@code ClaimCheckDeserializer}, and our {@code
 *       PrefetchingConsumer} with the same deserializer after it — with a fresh consumer and an
 *       empty cache each time (checked: one GET to store A per record). Every value is compared
 *       with what was sent, byte for byte; one wrong or missing value fails the run (exit 1).
 *   <li><b>Outage</b>: store A refuses connections ({@link FaultProxy#down()}); M more values are
 *       sent with each serializer and counted; ours are then read back, A still down.
 *   <li><b>Hang</b> (only when {@code hangMs > 0}): see {@link PeerHang}.
 * </ol>
 *
 * <p>Each round runs the variants in a rotated order; the young generation is touched once first
 * ({@link HeapWarmUp}), then untimed full rounds ({@code -Dpeer.warmups=N}, default 3). Ratios are
 * peer time over our time (above 1: we are faster); <i>end to end</i> is the peer's produce +
 * consume time over ours with the drop-in serde on both sides (our serializer, our deserializer
 * inside the consumer: no prefetch), the end-to-end figure. The peer runs on the Kafka
 * clients it links against, in its own class loader ({@link PeerClassLoader}): it cannot run on
 * this JVM's kafka-clients 4.4.
 *
 * <pre>
 *   mvn -B -pl benchmarks -am package -DskipTests
 *   java -cp benchmarks/target/benchmarks.jar io.ankusa.claimcheck.benchmarks.PeerHarness \
 *       [records=500] [valueBytes=300000] [getLatencyMs=20] [rounds=3] [putLatencyMs=0]
 *       [outageRecords=20] [hangMs=0]
 * </pre>
 */
public final class PeerHarness {

  private static final int OUR_DEFAULT_THRESHOLD = 256 << 10;

  /** Untimed full rounds before the measured ones unless {@code -Dpeer.warmups} says otherwise. */
  private static final int DEFAULT_WARMUPS = 3;

  private final int records;
  private final PeerRig rig;

  private PeerHarness(int records, PeerRig rig) {
    this.records = records;
    this.rig = rig;
  }

  public static void main(String[] args) {
    int records = arg(args, 0, 500);
    int valueBytes = arg(args, 1, 300_000);
    int getLatencyMs = arg(args, 2, 20);
    int rounds = arg(args, 3, 3);
    int putLatencyMs = arg(args, 4, 0);
    int outageRecords = arg(args, 5, 20);
    int hangMs = arg(args, 6, 0);
    int status = 0;
    PeerRig rig = null;
    try {
      int threshold = Math.min(OUR_DEFAULT_THRESHOLD, valueBytes);
      Path peerRuntime = peerRuntime();
      rig =
          new PeerRig(values(Math.max(records, outageRecords), valueBytes), threshold, peerRuntime);
      rig.latency(getLatencyMs, putLatencyMs);
      System.out.printf(
          "PeerHarness: %d records of %,d B (threshold %,d B for both), store A latency: GET %d ms,"
              + " PUT %d ms; %d rounds%n"
              + "  peer: %s / %s on kafka-clients %s (own class loader, jars in %s)%n"
              + "  ours: ClaimCheckSerializer / ClaimCheckDeserializer on kafka-clients %s;"
              + " AWS SDK %s for both%n",
          records,
          valueBytes,
          threshold,
          getLatencyMs,
          putLatencyMs,
          rounds,
          PeerRig.PEER_SERIALIZER,
          PeerRig.PEER_DESERIALIZER,
          rig.peerKafkaVersion(),
          peerRuntime,
          rig.ourKafkaVersion(),
          awsSdkVersion());
      new PeerHarness(records, rig).run(rounds, outageRecords);
      if (hangMs > 0) {
        new PeerHang(rig).run(Duration.ofMillis(hangMs));
      }
    } catch (Throwable t) {
      System.out.println("FAILED: " + t);
      t.printStackTrace(System.out);
      status = 1;
    } finally {
      if (rig != null) {
        rig.close();
      }
      EmbeddedS3.shared().close();
      EmbeddedKafka.shared().close();
    }
    System.exit(status);
  }

  private void run(int rounds, int outageRecords) {
    System.out.println(HeapWarmUp.touch()); // the first pass through a fresh eden page-faults
    warmUp();
    List<double[]> figures = new ArrayList<>(); // per round: produce peer, ours; consume a, b, c
    String peerTopic = null;
    String oursTopic = null;
    for (int round = 1; round <= rounds; round++) {
      String pt = rig.topic("peer-r" + round);
      String ot = rig.topic("ours-r" + round);
      long producePeer;
      long produceOurs;
      if (round % 2 == 1) {
        producePeer = rig.send(PeerRig.Lib.PEER, pt, records).requireAll().nanos();
        produceOurs = rig.send(PeerRig.Lib.OURS, ot, records).requireAll().nanos();
      } else {
        produceOurs = rig.send(PeerRig.Lib.OURS, ot, records).requireAll().nanos();
        producePeer = rig.send(PeerRig.Lib.PEER, pt, records).requireAll().nanos();
      }
      if (round == 1) {
        peerTopic = pt;
        oursTopic = ot;
      }
      long[] consume = new long[3];
      PeerRig.Reader[] order = PeerRig.Reader.values();
      for (int i = 0; i < order.length; i++) {
        PeerRig.Reader v = order[(i + round - 1) % order.length];
        String topic = v == PeerRig.Reader.PEER ? peerTopic : oursTopic;
        consume[v.ordinal()] = rig.consume(v, topic, records, true);
      }
      double[] f = {producePeer, produceOurs, consume[0], consume[1], consume[2]};
      figures.add(f);
      System.out.println(line("round " + round, f));
    }
    System.out.println(line("median", median(figures)));
    double[] e2e = figures.stream().mapToDouble(f -> (f[0] + f[2]) / (f[1] + f[3])).toArray();
    double[] sorted = e2e.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    System.out.printf(
        "end to end, drop-in serde both sides, per round: median %.2fx (%s)%n",
        sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
        Arrays.stream(e2e)
            .mapToObj(r -> String.format("%.2f", r))
            .collect(java.util.stream.Collectors.joining(" ")));
    outage(outageRecords);
  }

  /**
   * Untimed full rounds ({@code -Dpeer.warmups}, default {@value #DEFAULT_WARMUPS}), each printed:
   * on 2 cores the JIT still compiles the broker's, S3Proxy's and the SDK's code for minutes, and a
   * round's times kept falling through five rounds after a 50-record warm-up.
   */
  private void warmUp() {
    int passes = Integer.getInteger("peer.warmups", DEFAULT_WARMUPS);
    for (int pass = 1; pass <= passes; pass++) {
      String pt = rig.topic("peer-warmup" + pass);
      String ot = rig.topic("ours-warmup" + pass);
      double[] f = new double[5];
      f[0] = rig.send(PeerRig.Lib.PEER, pt, records).requireAll().nanos();
      f[1] = rig.send(PeerRig.Lib.OURS, ot, records).requireAll().nanos();
      for (PeerRig.Reader v : PeerRig.Reader.values()) {
        f[2 + v.ordinal()] = rig.consume(v, v == PeerRig.Reader.PEER ? pt : ot, records, true);
      }
      System.out.println(line("warm-up " + pass, f));
    }
  }

  private void outage(int m) {
    rig.storeA().down();
    try {
      rig.storeB().resetCounts();
      PeerRig.Sent peer = rig.send(PeerRig.Lib.PEER, rig.topic("peer-outage"), m);
      long peerPutsB = rig.storeB().requestCount("PUT");
      String ot = rig.topic("ours-outage");
      PeerRig.Sent ours = rig.send(PeerRig.Lib.OURS, ot, m);
      long oursPutsB = rig.storeB().requestCount("PUT") - peerPutsB;
      System.out.printf(
          "outage (store A down, %d records each): peer %d/%d sent in %,.0f ms%s | ours %d/%d sent"
              + " in %,.0f ms (%d PUTs to store B)%s%n",
          m,
          peer.ok(),
          m,
          peer.nanos() / 1e6,
          peer.firstError(),
          ours.ok(),
          m,
          ours.nanos() / 1e6,
          oursPutsB,
          ours.firstError());
      if (ours.ok() > 0) {
        long took = rig.consume(PeerRig.Reader.OURS, ot, ours.ok(), false);
        System.out.printf(
            "outage: ours read back %d/%d values byte-identical in %,.0f ms, store A still down%n",
            ours.ok(), ours.ok(), took / 1e6);
      }
    } finally {
      rig.storeA().up();
    }
  }

  private static String line(String label, double[] f) {
    return String.format(
        "%-8s produce: peer %,7.0f ms, ours %,7.0f ms (%4.2fx) | consume: peer %,7.0f ms,"
            + " ours %,7.0f ms (%4.2fx), ours+prefetch %,7.0f ms (%5.2fx)"
            + " | end to end, drop-in serde both sides: %4.2fx",
        label + ":",
        f[0] / 1e6,
        f[1] / 1e6,
        f[0] / f[1],
        f[2] / 1e6,
        f[3] / 1e6,
        f[2] / f[3],
        f[4] / 1e6,
        f[2] / f[4],
        (f[0] + f[2]) / (f[1] + f[3]));
  }

  private static double[] median(List<double[]> rows) {
    double[] m = new double[rows.get(0).length];
    for (int c = 0; c < m.length; c++) {
      double[] col = new double[rows.size()];
      for (int r = 0; r < rows.size(); r++) {
        col[r] = rows.get(r)[c];
      }
      Arrays.sort(col);
      int mid = col.length / 2;
      m[c] = col.length % 2 == 1 ? col[mid] : (col[mid - 1] + col[mid]) / 2;
    }
    return m;
  }

  private static byte[][] values(int n, int size) {
    byte[][] v = new byte[n][size];
    for (int i = 0; i < n; i++) {
      new Random(i).nextBytes(v[i]);
    }
    return v;
  }

  /**
   * The peer's Kafka clients: {@code -Dpeer.runtime=<dir>}, else {@code peer-runtime/} beside the
   * jar this class came from (the build copies them there).
   */
  private static Path peerRuntime() throws URISyntaxException {
    String dir = System.getProperty("peer.runtime");
    if (dir != null) {
      return Path.of(dir);
    }
    Path jar =
        Path.of(PeerHarness.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return jar.resolveSibling("peer-runtime");
  }

  private static String awsSdkVersion() {
    try {
      return (String)
          Class.forName("software.amazon.awssdk.core.util.VersionInfo")
              .getField("SDK_VERSION")
              .get(null);
    } catch (ReflectiveOperationException e) {
      return "unknown (" + e + ")";
    }
  }

  private static int arg(String[] args, int i, int otherwise) {
    return args.length > i ? Integer.parseInt(args[i]) : otherwise;
  }
}
