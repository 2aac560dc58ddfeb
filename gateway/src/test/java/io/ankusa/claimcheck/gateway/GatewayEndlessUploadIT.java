package io.ankusa.claimcheck.gateway;

import static io.ankusa.claimcheck.gateway.TestGateways.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chunked upload that never ends costs the gateway bounded time and bytes: once the body passes
 * the write limit the client gets {@code 413} and the connection is closed, so a client that goes
 * on sending finds its writes fail, having sent little more than the limit (plus socket buffers).
 */
class GatewayEndlessUploadIT {

  /** The write limit of the gateway under test. */
  static final int LIMIT = 1 << 20;

  /** The client's own bounds: it stops by itself past these (the test then fails). */
  static final long CLIENT_MAX_BYTES = 1L << 30;

  static final Duration CLIENT_MAX_TIME = Duration.ofSeconds(90);

  @TempDir static Path dir;
  static FaultProxy proxy;
  static String bucket;

  @BeforeAll
  static void start() {
    bucket =
        EmbeddedS3.shared().createBucket("gwe-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void aChunkedUploadThatNeverEndsGets413AndItsConnectionClosed() throws Exception {
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("claimcheck.write.max.bytes", Integer.toString(LIMIT));
    try (Gateway g = Gateway.start(m);
        Socket s = new Socket("127.0.0.1", g.uri().getPort())) {
      s.setSoTimeout(60_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /v1/claims HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + TOKEN_A
                  + "\r\nTransfer-Encoding: chunked\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      AtomicLong sent = new AtomicLong();
      long started = System.nanoTime();
      CompletableFuture<String> writer =
          CompletableFuture.supplyAsync(
              () -> {
                byte[] chunk = new byte[64 << 10];
                byte[] head = "10000\r\n".getBytes(StandardCharsets.US_ASCII);
                byte[] tail = "\r\n".getBytes(StandardCharsets.US_ASCII);
                long end = started + CLIENT_MAX_TIME.toNanos();
                try {
                  while (sent.get() < CLIENT_MAX_BYTES && System.nanoTime() < end) {
                    out.write(head);
                    out.write(chunk);
                    out.write(tail);
                    sent.addAndGet(chunk.length);
                  }
                  return "the client stopped by itself after " + sent.get() + " bytes";
                } catch (IOException cut) {
                  return "cut";
                }
              });

      String status =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      assertThat(status).startsWith("HTTP/1.1 413 ");
      assertThat(writer.get(CLIENT_MAX_TIME.toSeconds() + 30, TimeUnit.SECONDS))
          .as("the gateway closed the connection under the endless body")
          .isEqualTo("cut");
      System.out.printf(
          "endless upload: cut after %,d bytes in %d ms%n",
          sent.get(), Duration.ofNanos(System.nanoTime() - started).toMillis());
      assertThat(sent.get())
          .as("bytes the client got to send: the limit plus what buffers hold")
          .isLessThan(64L << 20);
    }
  }
}
