package io.ankusa.claimcheck.store.gcs;

import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Op;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Target;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs one store's blocking SDK calls on its I/O threads, each under its deadline and with its own
 * {@link Exchange}, completing a future with the value or the classified failure; thread-safe.
 *
 * <p>An SDK failure without an HTTP answer (refused, reset, broken, timed out) also drops the
 * transport's idle pooled connections ({@link ObservingTransport#distrustPool}).
 */
final class Calls {

  /** One blocking SDK call, given its target and its exchange. */
  @FunctionalInterface
  interface Call<T> {
    T run(Target target, Exchange exchange) throws Exception;
  }

  private final ExecutorService io;
  private final ObservingTransport transport;
  private final Duration operationTimeout;

  Calls(ExecutorService io, ObservingTransport transport, Duration operationTimeout) {
    this.io = Objects.requireNonNull(io, "io");
    this.transport = transport;
    this.operationTimeout = operationTimeout;
  }

  /**
   * Runs {@code call} on an I/O thread within the smaller of {@code timeout} and the operation
   * timeout, completing the future with its value or its classified failure (an {@link Error} as
   * itself); past the time, with {@code UNAVAILABLE} (the call is interrupted, and its sockets time
   * out by then too).
   */
  <T> CompletableFuture<T> run(Op op, Target target, Duration timeout, Call<T> call) {
    Objects.requireNonNull(timeout, "timeout");
    Duration t = timeout.compareTo(operationTimeout) < 0 ? timeout : operationTimeout;
    CompletableFuture<T> result = new CompletableFuture<>();
    if (t.toMillis() < 1) {
      result.completeExceptionally(
          new StoreException(
              Kind.UNAVAILABLE, target.where(op) + "timeout " + timeout + " already passed"));
      return result;
    }
    Future<?> task;
    try {
      task = io.submit(() -> attempt(op, target, t, call, result));
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(
          new StoreException(Kind.UNAVAILABLE, target.where(op) + "the store is closed", null, e));
      return result;
    }
    CompletableFuture.delayedExecutor(t.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (result.completeExceptionally(
                  new StoreException(Kind.UNAVAILABLE, target.where(op) + "timed out"))) {
                task.cancel(true);
              }
            });
    return result;
  }

  private <T> void attempt(
      Op op, Target target, Duration t, Call<T> call, CompletableFuture<T> result) {
    Exchange exchange = Exchange.begin(t.toMillis());
    try {
      result.complete(call.run(target, exchange));
    } catch (Throwable e) {
      if (!(e instanceof StoreException) && GcsFailures.status(e) == 0) { // ours had an answer
        transport.distrustPool();
      }
      result.completeExceptionally(GcsFailures.outcome(e, op, target, exchange));
    } finally {
      Exchange.end();
    }
  }
}
