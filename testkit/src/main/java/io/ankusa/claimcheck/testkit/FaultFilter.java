package io.ankusa.claimcheck.testkit;

import com.github.tomakehurst.wiremock.extension.requestfilter.RequestFilterAction;
import com.github.tomakehurst.wiremock.extension.requestfilter.RequestWrapper;
import com.github.tomakehurst.wiremock.extension.requestfilter.StubRequestFilterV2;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.RequestListener;
import com.github.tomakehurst.wiremock.http.Response;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sees every request a {@link FaultProxy} serves before stub matching: counts it (and its response
 * body's bytes) per method, tags the first n of a fail-n-times fault, and sheds requests above a
 * concurrency limit; thread-safe.
 *
 * <p>Invariants: {@link #filter} runs exactly once per request and {@link #requestReceived} once
 * per request after its response is rendered (a pass-through has its upstream answer by then), so
 * {@code inFlight} is the number of requests between the two. A fail-n-times budget is spent with
 * one atomic decrement per tagged request, so exactly n requests fail even under concurrency.
 * Configuration fields are volatile and replaced whole.
 */
final class FaultFilter implements StubRequestFilterV2, RequestListener {

  /** The header a request gets when it is one of a fail-n-times fault's n. */
  static final String FAIL_TAG = "X-Claimcheck-Fault-Once";

  private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, LongAdder> bodyBytes = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile Budget budget;
  private volatile int maxInFlight;

  /** A number of failures left, for one method or (method null) for every method. */
  private static final class Budget {
    final String method;
    final AtomicInteger remaining;

    Budget(String method, int n) {
      this.method = method;
      this.remaining = new AtomicInteger(n);
    }
  }

  @Override
  public String getName() {
    return "claimcheck-fault-filter";
  }

  @Override
  public RequestFilterAction filter(Request request, ServeEvent serveEvent) {
    String method = request.getMethod().getName().toUpperCase(Locale.ROOT);
    counts.computeIfAbsent(method, m -> new LongAdder()).increment();
    int now = inFlight.incrementAndGet();
    int limit = maxInFlight;
    if (limit > 0 && now > limit) {
      return RequestFilterAction.stopWith(
          Fault.slowDown(Duration.ofSeconds(1)).response(null).build());
    }
    Budget b = budget;
    if (b != null && (b.method == null || b.method.equals(method)) && spend(b.remaining)) {
      return RequestFilterAction.continueWith(
          RequestWrapper.create().addHeader(FAIL_TAG, "true").wrap(request));
    }
    return RequestFilterAction.continueWith(request);
  }

  @Override
  public void requestReceived(Request request, Response response) {
    byte[] body = response.getBody();
    if (body != null && body.length > 0) {
      String method = request.getMethod().getName().toUpperCase(Locale.ROOT);
      bodyBytes.computeIfAbsent(method, m -> new LongAdder()).add(body.length);
    }
    inFlight.decrementAndGet();
  }

  private static boolean spend(AtomicInteger remaining) {
    int r;
    do {
      r = remaining.get();
      if (r <= 0) {
        return false;
      }
    } while (!remaining.compareAndSet(r, r - 1));
    return true;
  }

  void failTimes(int n, String method) {
    budget = n > 0 ? new Budget(method, n) : null;
  }

  int failuresLeft() {
    Budget b = budget;
    return b == null ? 0 : Math.max(0, b.remaining.get());
  }

  void maxInFlight(int limit) {
    maxInFlight = limit;
  }

  long count(String method) {
    LongAdder a = counts.get(method.toUpperCase(Locale.ROOT));
    return a == null ? 0 : a.sum();
  }

  long responseBytes(String method) {
    LongAdder a = bodyBytes.get(method.toUpperCase(Locale.ROOT));
    return a == null ? 0 : a.sum();
  }

  void resetCounts() {
    counts.clear();
    bodyBytes.clear();
  }

  int inFlight() {
    return inFlight.get();
  }
}
