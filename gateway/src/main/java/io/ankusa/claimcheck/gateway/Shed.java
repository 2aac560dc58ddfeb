package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.gateway.telemetry.GatewayMetrics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The answer past the request gate, {@code 503} + {@code Retry-After} with its problem body, every
 * part of it written once at start (pre-encoded headers, a read-only body, cached counters) so that
 * answering it allocates next to nothing and never blocks: it is written from Jetty's selector
 * thread, before the request waits for a pool thread; thread-safe (immutable).
 */
final class Shed {

  /** The problem every shed request is answered. */
  static final Problem PROBLEM =
      Problem.of(
          503,
          "UNAVAILABLE",
          "overloaded: "
              + ClaimCheckConfig.MAX_CONCURRENT_READS
              + " requests are already being served");

  private static final HttpField NO_STORE =
      new PreEncodedHttpField(HttpHeader.CACHE_CONTROL, "no-store");
  private static final HttpField PROBLEM_JSON =
      new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "application/problem+json");

  private final HttpField retryAfter;
  private final HttpField contentLength;
  private final ByteBuffer body;
  private final Runnable[] counted;

  /** The shed answer with {@code Retry-After: retryAfterSeconds}, counted into {@code metrics}. */
  Shed(GatewayMetrics metrics, int retryAfterSeconds) {
    byte[] json = PROBLEM.json().getBytes(StandardCharsets.UTF_8);
    this.body = ByteBuffer.allocateDirect(json.length).put(json).flip().asReadOnlyBuffer();
    this.retryAfter = new PreEncodedHttpField(HttpHeader.RETRY_AFTER, retryAfterSeconds);
    this.contentLength = new PreEncodedHttpField(HttpHeader.CONTENT_LENGTH, json.length);
    this.counted =
        new Runnable[] {
          metrics.counter("check_in", 503), metrics.counter("claims", 503),
          metrics.counter("refs", 503), metrics.counter("other", 503)
        };
  }

  /** Answers {@code route}'s request as shed; completes {@code callback} when it is sent. */
  void answer(Request request, Response response, Callback callback, String route) {
    response.setStatus(503);
    HttpFields.Mutable h = response.getHeaders();
    h.put(retryAfter);
    h.put(NO_STORE);
    h.put(PROBLEM_JSON);
    h.put(contentLength);
    counted[index(route)].run();
    boolean head = "HEAD".equals(request.getMethod());
    response.write(true, head ? null : body.slice(), callback); // a view: one small object
  }

  private static int index(String route) {
    return switch (route) {
      case "check_in" -> 0;
      case "claims" -> 1;
      case "refs" -> 2;
      default -> 3;
    };
  }
}
