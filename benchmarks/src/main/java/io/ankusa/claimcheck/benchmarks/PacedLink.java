package io.ankusa.claimcheck.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP forwarder on loopback that delivers the server's bytes to each connection at a set rate,
 * like one connection to a remote object store (tens to a few hundred MB/s each), where loopback
 * S3Proxy delivers gigabytes per second; thread-safe, a thread pair per connection.
 *
 * <p>Client-to-server bytes pass unpaced. Server-to-client bytes go out in chunks of at most 16
 * KiB, each no earlier than the rate allows since the connection's first byte of the current burst
 * (a burst ends after 50 ms without bytes, so idle time between requests is not banked as credit).
 * For benchmarks only: it paces with {@code parkNanos}.
 */
final class PacedLink implements AutoCloseable {

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final double nanosPerByte;
  private volatile boolean closed;

  private PacedLink(InetSocketAddress target, double bytesPerSecond) throws IOException {
    this.target = target;
    this.nanosPerByte = 1e9 / bytesPerSecond;
    this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::accept, "paced-link-accept");
    t.setDaemon(true);
    t.start();
  }

  /** A link to {@code endpoint}'s host and port at {@code megabytesPerSecond} per direction. */
  static PacedLink to(URI endpoint, double megabytesPerSecond) throws IOException {
    return new PacedLink(
        new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), megabytesPerSecond * 1e6);
  }

  /** The link's endpoint: {@code http://127.0.0.1:PORT}. */
  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        upstream.connect(target);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        AtomicLong[] sent = {new AtomicLong(), new AtomicLong()}; // [up, down]
        pump(client, upstream, sent, 0);
        pump(upstream, client, sent, 1);
      } catch (IOException e) {
        if (!closed) {
          System.out.println("paced link: " + e);
        }
      }
    }
  }

  private void pump(Socket from, Socket to, AtomicLong[] sent, int direction) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16 << 10];
              long burstStart = 0;
              long burstBytes = 0;
              long otherSeen = -1;
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                  long now = System.nanoTime();
                  long other = sent[1 - direction].get();
                  if (other != otherSeen) {
                    // The other side spoke since: a new message, paced from now on.
                    otherSeen = other;
                    burstStart = now;
                    burstBytes = 0;
                  }
                  burstBytes += n;
                  long due = burstStart + (long) (burstBytes * nanosPerByte);
                  while ((now = System.nanoTime()) < due) {
                    LockSupport.parkNanos(due - now);
                  }
                  out.write(buf, 0, n);
                  out.flush();
                  sent[direction].addAndGet(n);
                }
              } catch (IOException e) {
                // either side closed: close both
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "paced-link-" + (direction == 1 ? "down" : "up"));
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
  }
}
