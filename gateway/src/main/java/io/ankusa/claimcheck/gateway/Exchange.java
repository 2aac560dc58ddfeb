package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.gateway.telemetry.GatewayMetrics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One request being answered: writes exactly one answer (later ones are dropped), counts it, and
 * runs the request's cleanup (its gate permit) when the answer is sent or fails; thread-safe.
 */
final class Exchange {

  private final Request request;
  private final Response response;
  private final Callback callback;
  private final GatewayMetrics metrics;
  private final String route;
  private final int retryAfterSeconds;
  private final AtomicBoolean answered = new AtomicBoolean();
  private volatile Runnable cleanup = () -> {};

  Exchange(
      Request request,
      Response response,
      Callback callback,
      GatewayMetrics metrics,
      String route,
      int retryAfterSeconds) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.metrics = metrics;
    this.route = route;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  Request request() {
    return request;
  }

  Response response() {
    return response;
  }

  String header(HttpHeader h) {
    return request.getHeaders().get(h);
  }

  String header(String name) {
    return request.getHeaders().get(name);
  }

  boolean isHead() {
    return "HEAD".equals(request.getMethod());
  }

  /** Runs {@code r} once the answer is sent (or failed). */
  void onDone(Runnable r) {
    this.cleanup = r;
  }

  /** Answers a problem+json; 503s carry Retry-After, 401s a Bearer challenge. */
  void problem(Problem p) {
    problem(p, null);
  }

  /** As {@link #problem(Problem)}, with {@code p}'s body already written ({@code json}). */
  void problem(Problem p, byte[] json) {
    if (!answered.compareAndSet(false, true)) {
      return;
    }
    response.setStatus(p.status());
    if (p.status() == 503) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Integer.toString(retryAfterSeconds));
    }
    if (p.status() == 401) {
      response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"claimcheck\"");
    }
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    byte[] body = json != null ? json : p.json().getBytes(StandardCharsets.UTF_8);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, Long.toString(body.length));
    send(p.status(), isHead() ? null : ByteBuffer.wrap(body), 0);
  }

  /**
   * Answers {@code status} with {@code body} (null: none); headers are set by the caller first.
   * {@code claimBytes} are counted as served.
   */
  void answer(int status, ByteBuffer body, long claimBytes) {
    if (!answered.compareAndSet(false, true)) {
      return;
    }
    response.setStatus(status);
    send(status, body, claimBytes);
  }

  /**
   * Starts a streamed answer of {@code status} (headers set by the caller first): true when this is
   * the exchange's answer, after which only {@link #write}, {@link #end} and {@link #abort} follow.
   */
  boolean begin(int status) {
    if (!answered.compareAndSet(false, true)) {
      return false;
    }
    response.setStatus(status);
    metrics.request(route, status);
    return true;
  }

  /** Writes one piece of a streamed answer; {@code then} runs once Jetty took it. */
  void write(ByteBuffer piece, Callback then) {
    response.write(false, piece, then);
  }

  /** Ends a streamed answer of {@code claimBytes}: the last write, then the cleanup. */
  void end(ByteBuffer last, long claimBytes) {
    response.write(
        true,
        last,
        new Callback() {
          @Override
          public void succeeded() {
            cleanup.run();
            metrics.served(route, claimBytes);
            callback.succeeded();
          }

          @Override
          public void failed(Throwable x) {
            cleanup.run();
            callback.failed(x);
          }

          @Override
          public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING; // Jetty may complete it on its selector thread
          }
        });
  }

  /**
   * Aborts a streamed answer already under way: Jetty then breaks the connection, so the client
   * sees a broken transfer (fewer bytes than the Content-Length), never a complete body.
   */
  void abort(Throwable why) {
    cleanup.run();
    callback.failed(why);
  }

  private void send(int status, ByteBuffer body, long claimBytes) {
    metrics.request(route, status);
    Callback done =
        new Callback() {
          @Override
          public void succeeded() {
            cleanup.run();
            if (claimBytes > 0) {
              metrics.served(route, claimBytes);
            }
            callback.succeeded();
          }

          @Override
          public void failed(Throwable x) {
            cleanup.run();
            callback.failed(x);
          }

          @Override
          public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING; // Jetty may complete it on its selector thread
          }
        };
    if (body == null) {
      response.write(true, null, done);
    } else {
      response.write(true, body, done);
    }
  }
}
