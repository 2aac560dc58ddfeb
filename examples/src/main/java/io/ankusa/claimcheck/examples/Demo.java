package io.ankusa.claimcheck.examples;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckSerde;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The demo: a producer sends values from 10 bytes to 4 MiB through {@link ClaimCheckSerializer}; a
 * Kafka Streams app reverses them with {@link ClaimCheckSerde}; a consumer reads the results with
 * {@link ClaimCheckDeserializer} and checks every byte, while store A of two goes down and comes
 * back ({@link FailoverDemo}); then a Kafka Connect pipeline ({@link ConnectDemo}). A real KRaft
 * broker and a real S3 server (S3Proxy) run in this JVM; nothing else is needed.
 */
public final class Demo {

  /** Values of this many bytes or more are checked in; smaller ones stay inline. */
  static final int THRESHOLD = 262_144;

  private Demo() {}

  /**
   * Runs both demos on one broker and one S3 server: producer -> Streams -> consumer through a
   * store outage, then the Kafka Connect pipeline; exits with status 1 unless all was identical.
   * With {@code --serve}, the servers then stay up for the claim gateway ({@link GatewayDemo}): it
   * writes the gateway's properties and prints the command that starts it and a {@code curl} of a
   * ref the demo produced, and waits for Enter.
   */
  public static void main(String[] args) throws Exception {
    boolean serve = Arrays.asList(args).contains("--serve");
    boolean ok;
    System.out.print("Starting a Kafka broker and an S3 server in this JVM...");
    long start = System.nanoTime();
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedS3 s3 = EmbeddedS3.start()) {
      System.out.printf(" up in %.1f s%n", (System.nanoTime() - start) / 1e9);
      FailoverDemo.Outcome o = FailoverDemo.run(kafka, s3);
      ok = o.identical() == o.sent();
      System.out.printf("%n--- Kafka Connect: a source connector and a sink connector ---%n");
      ok &= ConnectDemo.run(kafka, s3).allIdentical();
      if (serve && ok) {
        GatewayDemo.print(GatewayDemo.write(kafka, s3, GatewayDemo.dir()));
        GatewayDemo.awaitStop();
      } else if (ok) {
        System.out.printf(
            "%n(with -Dexec.args=--serve the servers stay up, to redeem these refs through the"
                + " claim gateway)%n");
      }
    }
    if (!ok) {
      System.exit(1);
    }
  }

  /** What a test does with the gateway hand-off while the demo's servers still run. */
  interface WhileServing {
    void accept(GatewayDemo.Handoff handoff) throws Exception;
  }

  /** Runs the producer -> Streams -> consumer failover demo on its own broker and S3 server. */
  static FailoverDemo.Outcome run() throws Exception {
    return run(null, null);
  }

  /**
   * Runs the failover demo, then (with a {@code gatewayDir}) writes the gateway hand-off there and
   * gives it to {@code whileServing} before the servers stop.
   */
  static FailoverDemo.Outcome run(Path gatewayDir, WhileServing whileServing) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedS3 s3 = EmbeddedS3.start()) {
      FailoverDemo.Outcome o = FailoverDemo.run(kafka, s3);
      if (gatewayDir != null) {
        GatewayDemo.Handoff h = GatewayDemo.write(kafka, s3, gatewayDir);
        GatewayDemo.print(h);
        whileServing.accept(h);
      }
      return o;
    }
  }

  /** The Connect demo's claim-check settings: S3 store {@code bucket} on {@code s3}, zstd. */
  static Map<String, String> claimCheckSettings(EmbeddedS3 s3, String bucket) {
    Map<String, String> claimcheck = new HashMap<>();
    claimcheck.put("claimcheck.stores", "s3://" + bucket + "/demo");
    claimcheck.put("claimcheck.s3.endpoint", s3.endpoint().toString());
    claimcheck.put("claimcheck.s3.region", s3.region());
    claimcheck.put("claimcheck.s3.path.style.access", "true");
    claimcheck.put("claimcheck.s3.access.key.id", s3.accessKey());
    claimcheck.put("claimcheck.s3.secret.access.key", s3.secretKey());
    claimcheck.put("claimcheck.threshold.bytes", String.valueOf(THRESHOLD));
    claimcheck.put("claimcheck.compression.type", "zstd");
    claimcheck.put("claimcheck.tenant", "demo");
    return claimcheck;
  }
}
