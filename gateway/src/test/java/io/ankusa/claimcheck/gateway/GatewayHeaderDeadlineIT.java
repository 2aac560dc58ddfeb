package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client trickling its request headers (one byte every 200 ms, well inside the idle timeout, so
 * Jetty alone would keep it until {@code gateway.max.header.bytes}) is closed at {@code
 * gateway.header.deadline.ms}; an ordinary keep-alive client, sending requests for longer than the
 * deadline and idling between them for longer than it, is not.
 */
class GatewayHeaderDeadlineIT {

  @TempDir static Path dir;
  static FaultProxy proxy;
  static String bucket;

  @BeforeAll
  static void start() {
    bucket =
        EmbeddedS3.shared().createBucket("gwh-" + UUID.randomUUID().toString().substring(0, 8));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void aHeaderTrickleIsClosedAtTheDeadlineAndKeepAliveClientsAreNot() throws Exception {
    Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
    m.put("gateway.idle.timeout.ms", "30000");
    m.put("gateway.header.deadline.ms", "1000");
    try (Gateway g = Gateway.start(m);
        Socket slow = new Socket("127.0.0.1", g.uri().getPort());
        Socket steady = new Socket("127.0.0.1", g.uri().getPort())) {
      slow.setSoTimeout(200);
      steady.setSoTimeout(10_000);
      OutputStream out = slow.getOutputStream();
      out.write("GET /health/live HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      BufferedReader steadyIn =
          new BufferedReader(
              new InputStreamReader(steady.getInputStream(), StandardCharsets.US_ASCII));
      // 150 header bytes at 200 ms each would take 30 s, and stay far under the 8 KiB header bound.
      int sent = 0;
      boolean cut = false;
      for (; sent < 150 && !cut; sent++) {
        try {
          out.write('x');
          out.flush();
          cut = slow.getInputStream().read() < 0; // the gateway answers nothing: EOF is its close
        } catch (SocketTimeoutException stillOpen) {
          // nothing to read yet: the trickle goes on
        } catch (IOException reset) {
          cut = true;
        }
        if (sent % 5 == 0) {
          // The steady client: a whole request each second, idle in between (longer than the
          // deadline across requests, never inside one).
          assertThat(get(steady, steadyIn)).isEqualTo(200);
        }
      }
      assertThat(cut).as("the trickling connection was closed").isTrue();
      assertThat(sent)
          .as("closed after about the 1 s deadline (5 bytes), long before the trickle ended")
          .isLessThan(100);
      assertThat(g.closedForSlowHeaders()).isEqualTo(1);
      Thread.sleep(1500); // idle, between requests, past the deadline
      assertThat(get(steady, steadyIn)).as("the keep-alive client is still served").isEqualTo(200);
      assertThat(g.closedForSlowHeaders()).isEqualTo(1);
    }
  }

  /** One GET of /health/live on a kept-alive connection; returns its status. */
  private static int get(Socket s, BufferedReader in) throws IOException {
    s.getOutputStream()
        .write("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    String status = in.readLine();
    int length = 0;
    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).strip());
      }
    }
    for (int i = 0; i < length; i++) {
      in.read();
    }
    return Integer.parseInt(status.split(" ")[1]);
  }
}
