package io.ankusa.claimcheck.testkit;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.request;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.common.Slf4jNotifier;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An HTTP proxy (WireMock) in front of an S3 endpoint that passes requests through until told to
 * misbehave; thread-safe.
 *
 * <p>Point a client at {@link #endpoint()} with the target's credentials: the Host header is
 * preserved, so SigV4 signatures stay valid. At most one persistent {@link Fault} is on per method
 * scope (one method, or every method); switching one on replaces the scope's previous one, and
 * {@link #clear()} goes back to pass-through. Precedence: a fail-n-times fault, then a method's
 * fault, then an every-method fault, then pass-through. Requests are counted per HTTP method
 * whether or not they fail.
 */
public final class FaultProxy implements AutoCloseable {

  private static final int FAIL_ONCE_PRIORITY = 1;
  private static final int METHOD_PRIORITY = 2;
  private static final int ANY_METHOD_PRIORITY = 3;
  private static final int PASS_THROUGH_PRIORITY = 10;
  private static final String ANY = "ANY";

  private final URI target;
  private final WireMockServer server;
  private final FaultFilter filter;
  private final URI endpoint;
  private final Map<String, StubMapping> faults = new HashMap<>();
  private StubMapping failOnce;
  private boolean closed;

  private FaultProxy(URI target, WireMockServer server, FaultFilter filter) {
    this.target = target;
    this.server = server;
    this.filter = filter;
    this.endpoint = URI.create("http://127.0.0.1:" + server.port());
  }

  /** Starts a pass-through proxy in front of {@code s3}. */
  public static FaultProxy inFrontOf(EmbeddedS3 s3) {
    return start(s3.endpoint(), new WholeObjects(s3.endpoint(), s3.accessKey(), s3.secretKey()));
  }

  /**
   * Starts a pass-through proxy in front of {@code target} (scheme, host and port) on a random free
   * port of {@code 127.0.0.1}.
   *
   * @throws IllegalStateException when it does not start, with the reason
   */
  public static FaultProxy start(URI target) {
    return start(target, null);
  }

  private static FaultProxy start(URI target, WholeObjects wholeObjects) {
    Objects.requireNonNull(target, "target");
    FaultFilter filter = new FaultFilter();
    WireMockServer server = null;
    try {
      server =
          new WireMockServer(
              options()
                  .bindAddress("127.0.0.1")
                  .port(FreePorts.next())
                  .preserveHostHeader(true)
                  .gzipDisabled(true)
                  .disableRequestJournal()
                  .containerThreads(100)
                  .notifier(new Slf4jNotifier(false))
                  .extensions(filter, new HangTransformer(), new BodyTransformer(wholeObjects)));
      server.addMockServiceRequestListener(filter);
      server.stubFor(
          any(anyUrl())
              .atPriority(PASS_THROUGH_PRIORITY)
              .willReturn(aResponse().proxiedFrom(target.toString())));
      server.start();
      return new FaultProxy(target, server, filter);
    } catch (RuntimeException | LinkageError e) {
      if (server != null && server.isRunning()) {
        server.stop();
      }
      throw new IllegalStateException(
          "FaultProxy: WireMock did not start in front of " + target + ": " + e, e);
    }
  }

  /** Returns the proxy's base URI; clients use it as their S3 endpoint. */
  public URI endpoint() {
    return endpoint;
  }

  /** Returns where requests are passed through to. */
  public URI target() {
    return target;
  }

  /** Answers every request with {@code fault} until cleared or replaced. */
  public FaultProxy inject(Fault fault) {
    return inject(fault, null);
  }

  /**
   * Answers every request of HTTP {@code method} (such as {@code GET}, {@code PUT}, {@code HEAD};
   * null for every method) with {@code fault} until cleared or replaced.
   */
  public synchronized FaultProxy inject(Fault fault, String method) {
    Objects.requireNonNull(fault, "fault");
    String scope = method == null ? ANY : method.toUpperCase(Locale.ROOT);
    StubMapping previous = faults.remove(scope);
    if (previous != null) {
      server.removeStub(previous);
    }
    MappingBuilder mapping =
        method == null
            ? any(anyUrl()).atPriority(ANY_METHOD_PRIORITY)
            : request(scope, anyUrl()).atPriority(METHOD_PRIORITY);
    faults.put(scope, server.stubFor(mapping.willReturn(fault.response(target))));
    return this;
  }

  /** Answers 503 SlowDown with {@code Retry-After} (whole seconds) to every request. */
  public FaultProxy throttle503SlowDown(Duration retryAfter) {
    return inject(Fault.slowDown(retryAfter));
  }

  /** Answers 429 to every request. */
  public FaultProxy throttle429() {
    return inject(Fault.tooManyRequests());
  }

  /** Answers 403 AccessDenied to every request. */
  public FaultProxy forbidden403() {
    return inject(Fault.forbidden());
  }

  /** Holds every request for {@code delay}, then passes it through (not before). */
  public FaultProxy hang(Duration delay) {
    return inject(Fault.hang(delay));
  }

  /** Resets the connection of every request. */
  public FaultProxy reset() {
    return inject(Fault.connectionReset());
  }

  /**
   * Answers the next {@code n} requests with {@code fault}, then recovers; replaces a previous one.
   */
  public FaultProxy failTimes(int n, Fault fault) {
    return failTimes(n, fault, null);
  }

  /**
   * Answers the next {@code n} requests of HTTP {@code method} (null for any) with {@code fault},
   * then recovers; exact under concurrent requests. Replaces a previous fail-n-times fault.
   */
  public synchronized FaultProxy failTimes(int n, Fault fault, String method) {
    Objects.requireNonNull(fault, "fault");
    if (n < 0) {
      throw new IllegalArgumentException("n must not be negative: " + n);
    }
    filter.failTimes(0, null);
    if (failOnce != null) {
      server.removeStub(failOnce);
    }
    failOnce =
        server.stubFor(
            any(anyUrl())
                .withHeader(FaultFilter.FAIL_TAG, matching(".*"))
                .atPriority(FAIL_ONCE_PRIORITY)
                .willReturn(fault.response(target)));
    filter.failTimes(n, method == null ? null : method.toUpperCase(Locale.ROOT));
    return this;
  }

  /** Returns how many of the last fail-n-times fault's failures are still to come. */
  public int failuresLeft() {
    return filter.failuresLeft();
  }

  /**
   * Answers 503 SlowDown (Retry-After 1 s) to a request that arrives while {@code maxInFlight}
   * requests are being served (a request counts from its arrival, through any hang, until its
   * answer is ready); 0 switches this off.
   */
  public FaultProxy throttleAbove(int maxInFlight) {
    if (maxInFlight < 0) {
      throw new IllegalArgumentException("maxInFlight must not be negative: " + maxInFlight);
    }
    filter.maxInFlight(maxInFlight);
    return this;
  }

  /** Stops listening: connections to {@link #endpoint()} are refused until {@link #up()}. */
  public synchronized FaultProxy down() {
    if (server.isRunning()) {
      server.stop();
    }
    awaitRefused();
    return this;
  }

  /**
   * Returns once the port refuses connections: stopping the server returns while a request it is
   * still holding (a hang) can keep the listener accepting, and a test of "down" must see refusal.
   */
  private void awaitRefused() {
    long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < until) {
      try (java.net.Socket probe = new java.net.Socket()) {
        probe.connect(new java.net.InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 200);
      } catch (java.io.IOException refused) {
        return;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
    }
    throw new IllegalStateException(
        "FaultProxy: " + endpoint + " still accepts connections after down()");
  }

  /** Listens again on the same port, with the same faults; does nothing when already up. */
  public synchronized FaultProxy up() {
    if (!closed && !server.isRunning()) {
      try {
        server.start();
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "FaultProxy: cannot listen again on " + endpoint + ": " + e, e);
      }
    }
    return this;
  }

  /** Whether the proxy is accepting connections. */
  public boolean isUp() {
    return server.isRunning();
  }

  /** Switches every fault off, including fail-n-times and throttling, and comes back up. */
  public synchronized FaultProxy clear() {
    faults.values().forEach(server::removeStub);
    faults.clear();
    filter.failTimes(0, null);
    if (failOnce != null) {
      server.removeStub(failOnce);
      failOnce = null;
    }
    filter.maxInFlight(0);
    return up();
  }

  /** Returns how many requests of HTTP {@code method} the proxy has seen since the last reset. */
  public long requestCount(String method) {
    return filter.count(method);
  }

  /**
   * Returns how many response body bytes answers to HTTP {@code method} carried since the last
   * reset (a claim's transfer from the store shows here; a HEAD's answer carries none).
   */
  public long responseBytes(String method) {
    return filter.responseBytes(method);
  }

  /** Zeroes the request counts and the response byte counts. */
  public void resetCounts() {
    filter.resetCounts();
  }

  /** Returns how many requests are being served right now. */
  public int inFlight() {
    return filter.inFlight();
  }

  /** Stops the proxy; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (server.isRunning()) {
      server.stop();
    }
  }

  @Override
  public String toString() {
    return "FaultProxy[" + endpoint + " -> " + target + "]";
  }
}
