package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheck.RequestPermit;
import io.ankusa.claimcheck.gateway.telemetry.GatewayMetrics;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Routes the gateway's requests (a Jetty 12 core handler, no servlets); thread-safe.
 *
 * <p>Every {@code /v1/} request of a served method first takes a permit of the process's request
 * gate ({@code claimcheck.max.concurrent.reads}, cache hits included): past it the answer is {@code
 * 503} + {@code Retry-After} before anything else is looked at — no token check, no ref decode, no
 * store request. The handler is non-blocking, so Jetty calls it on the selector thread that parsed
 * the request: the gate is judged and a shed request answered ({@link Shed}) there, before the
 * request waits for a pool thread (or, on a busy machine, for a core); only admitted requests (and
 * the health, metrics and error routes) are handed to the pool, which runs the rest: the bearer
 * token, or without one a verified client certificate whose subject CN the tokens file maps ({@link
 * ClientCertificates}) (401), then the route. The permit is given back when the answer has been
 * sent.
 */
final class GatewayHandler extends Handler.Abstract {

  static final String DEADLINE_HEADER = "X-Claimcheck-Deadline-Ms";
  static final String CLAIMS = "/v1/claims";
  static final String REFS = "/v1/refs/";

  private final ClaimCheck cc;
  private final Tokens tokens;
  private final GatewayMetrics metrics;
  private final Redeems redeems;
  private final CheckIns checkIns;
  private final Readiness readiness;
  private final int retryAfter;
  private final Shed shed;
  private final Executor pool;

  GatewayHandler(
      ClaimCheck cc,
      Tokens tokens,
      GatewayMetrics metrics,
      CheckIns checkIns,
      Readiness readiness,
      InlineLeads inline,
      int retryAfter,
      Executor pool) {
    super(InvocationType.NON_BLOCKING);
    this.cc = cc;
    this.tokens = tokens;
    this.metrics = metrics;
    this.redeems = new Redeems(cc, inline);
    this.checkIns = checkIns;
    this.readiness = readiness;
    this.retryAfter = retryAfter;
    this.shed = new Shed(metrics, retryAfter);
    this.pool = pool;
  }

  /** On the selector thread: the gate, a shed answer, else the hand-off to the pool. */
  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    String gated = gatedRoute(path, method);
    RequestPermit permit = null;
    if (gated != null) {
      permit = cc.admitRequest();
      if (permit == null) {
        shed.answer(request, response, callback, gated);
        return true;
      }
    }
    RequestPermit admitted = permit;
    try {
      pool.execute(
          () -> {
            try {
              serve(request, response, callback, path, method, admitted);
            } catch (RuntimeException e) {
              if (admitted != null) {
                admitted.close(); // a permit is given back once, however often it is closed
              }
              callback.failed(e);
            }
          });
    } catch (RejectedExecutionException e) {
      if (admitted != null) {
        admitted.close();
      }
      shed.answer(request, response, callback, gated == null ? "other" : gated);
    }
    return true;
  }

  /** The route of a request the gate counts (a served method on a claim route), else null. */
  static String gatedRoute(String path, String method) {
    if (path.equals(CLAIMS)) {
      return method.equals("POST") ? "check_in" : null;
    }
    if (!method.equals("GET") && !method.equals("HEAD")) {
      return null;
    }
    return path.startsWith(CLAIMS + "/") ? "claims" : path.startsWith(REFS) ? "refs" : null;
  }

  /** On a pool thread: everything but the gate, {@code permit} the request's (null: ungated). */
  private void serve(
      Request request,
      Response response,
      Callback callback,
      String path,
      String method,
      RequestPermit permit) {
    boolean get = method.equals("GET") || method.equals("HEAD");
    switch (path) {
      case "/health/live" -> {
        text(exchange(request, response, callback, "health"), 200, "live\n", get);
        return;
      }
      case "/health/ready" -> {
        boolean ready = readiness.ready();
        text(
            exchange(request, response, callback, "health"),
            ready ? 200 : 503,
            ready ? "ready\n" : "not ready: the stores have not answered a probe yet\n",
            get);
        return;
      }
      case "/metrics" -> {
        text(exchange(request, response, callback, "metrics"), 200, metrics.scrape(), get);
        return;
      }
      default -> {}
    }
    String route;
    if (path.equals(CLAIMS)) {
      route = "check_in";
    } else if (path.startsWith(CLAIMS + "/")) {
      route = "claims";
    } else if (path.startsWith(REFS)) {
      route = "refs";
    } else {
      exchange(request, response, callback, "other")
          .problem(Problem.of(404, "NO_ROUTE", "no such route; see docs/gateway.md"));
      return;
    }
    Exchange x = exchange(request, response, callback, route);
    boolean allowed = route.equals("check_in") ? method.equals("POST") : get;
    if (!allowed) {
      response.getHeaders().put(HttpHeader.ALLOW, route.equals("check_in") ? "POST" : "GET, HEAD");
      x.problem(Problem.of(405, "METHOD_NOT_ALLOWED", method + " is not served on " + route));
      return;
    }
    if (permit == null) { // never: an allowed method on a claim route was gated
      x.problem(Shed.PROBLEM);
      return;
    }
    x.onDone(permit::close);
    try {
      route(x, route, path);
    } catch (RuntimeException e) {
      x.problem(Problem.of(503, "UNAVAILABLE", "the gateway failed answering: " + e));
    }
  }

  private void route(Exchange x, String route, String path) {
    String authorization = x.header(HttpHeader.AUTHORIZATION);
    Grant grant =
        authorization != null
            ? authenticate(authorization)
            : ClientCertificates.grant(x.request(), tokens);
    if (grant == null) {
      x.problem(
          Problem.of(
              401,
              "UNAUTHORIZED",
              "a valid bearer token, or a client certificate the tokens file maps, is required"));
      return;
    }
    if (route.equals("check_in")) {
      checkIns.checkIn(x, grant);
      return;
    }
    String segment = path.substring(route.equals("claims") ? CLAIMS.length() + 1 : REFS.length());
    ClaimRef ref;
    try {
      ref = RefPath.decode(segment);
    } catch (RefPath.NotBase64 e) {
      x.problem(Problem.of(400, "BAD_REF", e.getMessage()));
      return;
    } catch (MalformedRefException e) {
      x.problem(
          e.needsNewerReader()
              ? Problem.of(503, "UNAVAILABLE", "written by a newer library: " + e.getMessage())
              : Problem.of(400, "BAD_REF", e.getMessage()));
      return;
    }
    if (route.equals("claims")) {
      redeems.claim(x, grant, ref);
    } else {
      redeems.describe(x, grant, ref);
    }
  }

  private Grant authenticate(String authorization) {
    if (authorization == null || authorization.length() > 4096) {
      return null;
    }
    String a = authorization.strip();
    if (a.length() < 8 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = a.substring(7).strip();
    return token.isEmpty() ? null : tokens.lookup(token);
  }

  private Exchange exchange(Request req, Response resp, Callback cb, String route) {
    return new Exchange(req, resp, cb, metrics, route, retryAfter);
  }

  private static void text(Exchange x, int status, String body, boolean get) {
    if (!get) {
      x.response().getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
      x.problem(Problem.of(405, "METHOD_NOT_ALLOWED", "only GET and HEAD"));
      return;
    }
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.response()
        .getHeaders()
        .put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    x.response().getHeaders().put(HttpHeader.CONTENT_LENGTH, Long.toString(b.length));
    x.response().getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    x.answer(status, x.isHead() ? null : ByteBuffer.wrap(b), 0);
  }
}
