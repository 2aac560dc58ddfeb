package io.ankusa.claimcheck.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link EmbeddedKms}'s HTTP side: counts each request per operation, applies the switched-on
 * faults (slow, hang, throttle, in that order), then answers it through {@link KmsOperations} as
 * JSON 1.1; thread-safe.
 */
final class KmsHandler implements HttpHandler {

  private static final String TARGET_PREFIX = "TrentService.";
  private static final String CONTENT_TYPE = "application/x-amz-json-1.1";

  private final KmsOperations operations;
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final AtomicInteger throttled = new AtomicInteger();
  private final Object lock = new Object();
  private Duration delay = Duration.ZERO;
  private boolean hanging;
  private boolean closed;

  KmsHandler(KmsOperations operations) {
    this.operations = operations;
  }

  void throttle(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0: " + n);
    }
    throttled.set(n);
  }

  void slow(Duration d) {
    Objects.requireNonNull(d, "delay");
    if (d.isNegative()) {
      throw new IllegalArgumentException("delay must be >= 0: " + d);
    }
    synchronized (lock) {
      delay = d;
    }
  }

  void hang() {
    synchronized (lock) {
      hanging = true;
    }
  }

  /** Ends throttling, delay and hang; held requests go on. */
  void clear() {
    throttled.set(0);
    synchronized (lock) {
      hanging = false;
      delay = Duration.ZERO;
      lock.notifyAll();
    }
  }

  /** Ends held requests without an answer, for good. */
  void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
  }

  long count(String operation) {
    AtomicLong c = counts.get(operation);
    return c == null ? 0 : c.get();
  }

  void resetCounts() {
    counts.clear();
  }

  @Override
  public void handle(HttpExchange x) throws IOException {
    try {
      byte[] body;
      try (InputStream in = x.getRequestBody()) {
        body = in.readAllBytes();
      }
      String target = x.getRequestHeaders().getFirst("X-Amz-Target");
      String op =
          target != null && target.startsWith(TARGET_PREFIX)
              ? target.substring(TARGET_PREFIX.length())
              : "(no X-Amz-Target)";
      counts.computeIfAbsent(op, k -> new AtomicLong()).incrementAndGet();
      if (!awaitFaults()) {
        return;
      }
      KmsError error = null;
      String answer = null;
      try {
        if (!"POST".equals(x.getRequestMethod()) || target == null) {
          throw KmsError.validation("EmbeddedKms answers POST / with X-Amz-Target only");
        }
        if (throttled.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
          throw KmsError.throttling();
        }
        answer =
            operations.answer(op, KmsJson.parseObject(new String(body, StandardCharsets.UTF_8)));
      } catch (KmsError e) {
        error = e;
      } catch (IllegalArgumentException e) {
        error = new KmsError("SerializationException", 400, e.getMessage());
      } catch (RuntimeException e) {
        error = new KmsError("KMSInternalException", 500, "EmbeddedKms failed: " + e);
      }
      byte[] out = (error == null ? answer : error.body()).getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      x.getResponseHeaders().set("x-amzn-RequestId", UUID.randomUUID().toString());
      x.sendResponseHeaders(error == null ? 200 : error.status(), out.length);
      try (OutputStream o = x.getResponseBody()) {
        o.write(out);
      }
    } finally {
      x.close();
    }
  }

  /** Waits out slow and hang faults; false when the wait ended by interruption or close. */
  private boolean awaitFaults() {
    synchronized (lock) {
      try {
        long start = System.nanoTime();
        while (!closed) {
          if (hanging) {
            lock.wait();
            continue;
          }
          long left = delay.toNanos() - (System.nanoTime() - start);
          if (left <= 0) {
            return true;
          }
          lock.wait(Math.max(1, left / 1_000_000));
        }
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }
}
