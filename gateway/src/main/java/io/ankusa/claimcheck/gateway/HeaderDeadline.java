package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * A deadline on each request's line and headers, enforced by a periodic sweep of the connector's
 * connections: one whose parser has been inside the same request's headers for longer than the
 * deadline is closed; thread-safe (the sweep runs on one timer thread).
 *
 * <p>Jetty bounds headers in size ({@code gateway.max.header.bytes}) but not in time: its idle
 * timeout restarts at every byte, so a client trickling one header byte every few seconds (a
 * slow-loris) would hold its connection for hours. The sweep reads each HTTP/1.1 connection's
 * parser state (a volatile field) and its count of requests begun: a connection is timed from the
 * first sweep that finds it past the start of a request and not yet past its headers, and forgiven
 * as soon as it is not (or began another request). So it is closed between {@code deadline} and
 * {@code deadline + period} after its first byte; an ordinary request, whose headers are parsed at
 * once, is never caught twice. A connection under TLS is judged by the HTTP connection inside it.
 */
final class HeaderDeadline implements AutoCloseable {

  private final ServerConnector connector;
  private final Ticker ticker;
  private final long deadlineNanos;
  private final Map<EndPoint, Seen> seen = new ConcurrentHashMap<>();
  private final ScheduledFuture<?> sweep;
  private volatile long closed;

  /** When a connection was first found inside a request's headers, and which request. */
  private record Seen(long messagesIn, long sinceNanos) {}

  HeaderDeadline(
      ServerConnector connector, Ticker ticker, long deadlineMs, ScheduledExecutorService timer) {
    this.connector = connector;
    this.ticker = ticker;
    this.deadlineNanos = TimeUnit.MILLISECONDS.toNanos(deadlineMs);
    long period = Math.max(50, Math.min(1000, deadlineMs / 4));
    this.sweep = timer.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  /** How many connections the deadline closed: for tests and logs. */
  long closed() {
    return closed;
  }

  void sweep() {
    try {
      long now = ticker.read();
      var open = connector.getConnectedEndPoints();
      seen.keySet().retainAll(open);
      for (EndPoint ep : open) {
        HttpConnection http = http(ep.getConnection());
        HttpParser parser = http == null ? null : http.getParser();
        if (parser == null || parser.isStart() || !parser.inHeaderState()) {
          seen.remove(ep);
          continue;
        }
        long request = http.getMessagesIn();
        Seen s = seen.get(ep);
        if (s == null || s.messagesIn() != request) {
          seen.put(ep, new Seen(request, now));
        } else if (now - s.sinceNanos() >= deadlineNanos) {
          seen.remove(ep);
          closed++;
          ep.close(new java.util.concurrent.TimeoutException("request headers past the deadline"));
        }
      }
    } catch (RuntimeException e) {
      // A sweep that failed leaves the next one to run: the timer must not lose the task.
    }
  }

  private static HttpConnection http(Connection c) {
    if (c instanceof SslConnection ssl) {
      c = ssl.getSslEndPoint().getConnection();
    }
    return c instanceof HttpConnection h ? h : null;
  }

  @Override
  public void close() {
    sweep.cancel(false);
    seen.clear();
  }
}
