package io.ankusa.claimcheck.testkit;

import java.io.IOException;
import java.io.InputStream;

/**
 * Runs an {@link EmbeddedKafka} broker and an {@link EmbeddedS3} server in a process of their own
 * until its standard input closes; for tests whose own class path cannot hold the broker (such as a
 * client of another Kafka version).
 *
 * <p>Prints one line once both serve, then nothing more:
 *
 * <pre>
 * SERVERS bootstrap=localhost:PORT s3=http://127.0.0.1:PORT access=KEY secret=SECRET region=REGION
 * </pre>
 *
 * <p>Bucket names given as arguments are created first. On end of input (the parent exited or
 * closed the pipe) both servers stop and the process exits 0; if either fails to start it prints
 * the reason and exits 1.
 */
public final class ServersMain {

  private ServersMain() {}

  public static void main(String[] args) throws IOException {
    EmbeddedKafka kafka;
    EmbeddedS3 s3;
    try {
      kafka = EmbeddedKafka.start();
      s3 = EmbeddedS3.start();
      for (String bucket : args) {
        s3.createBucket(bucket);
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
      System.exit(1);
      return;
    }
    System.out.println(
        "SERVERS bootstrap="
            + kafka.bootstrapServers()
            + " s3="
            + s3.endpoint()
            + " access="
            + s3.accessKey()
            + " secret="
            + s3.secretKey()
            + " region="
            + s3.region());
    System.out.flush();
    InputStream in = System.in;
    while (in.read() >= 0) {
      // wait for the parent to close the pipe
    }
    s3.close();
    kafka.close();
    System.exit(0);
  }
}
