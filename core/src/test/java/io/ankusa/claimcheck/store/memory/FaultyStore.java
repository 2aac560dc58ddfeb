package io.ankusa.claimcheck.store.memory;

import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.InlineCalls;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The fault-injecting memory store: injected faults and latencies in front of the production {@link
 * InMemoryStore}; thread-safe.
 *
 * <p>Invariants: every operation is counted, then its faults are consulted before the objects are
 * touched, so a failed operation changes nothing; the objects are the plain store's (copied in and
 * out, put-if-absent atomic).
 */
final class FaultyStore implements MemoryStore {

  private final String name;
  private final HangClock clock;
  private final InMemoryStore objects;
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final Map<Op, AtomicLong> counts = new EnumMap<>(Op.class);
  private final Map<Op, AtomicLong> inline = new EnumMap<>(Op.class);

  FaultyStore(String name, HangClock clock) {
    this.name = name;
    this.clock = clock;
    this.objects = new InMemoryStore(name);
    for (Op op : Op.values()) {
      counts.put(op, new AtomicLong());
      inline.put(op, new AtomicLong(-1));
    }
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    byte[] copy = bytes.clone();
    return run(Op.PUT, key, timeout, () -> objects.putIfAbsent(key, copy, timeout));
  }

  /** A replacing put counts and fails as a {@link Op#PUT}. */
  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    byte[] copy = bytes.clone();
    return run(Op.PUT, key, timeout, () -> objects.put(key, copy, timeout));
  }

  /**
   * A streamed put counts and fails as a {@link Op#PUT}, its faults judged (a hang spent) before
   * the source is read.
   */
  @Override
  public long putStreamIfAbsent(
      String key, java.io.InputStream source, long length, Duration timeout)
      throws java.io.IOException {
    try {
      run(Op.PUT, key, timeout, () -> CompletableFuture.<Void>completedFuture(null)).join();
    } catch (java.util.concurrent.CompletionException e) {
      Throwable t = StoreException.unwrap(e);
      throw t instanceof RuntimeException r ? r : e;
    }
    return objects.putStreamIfAbsent(key, source, length, timeout);
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    return run(Op.GET, key, timeout, () -> objects.getRange(key, offset, length, timeout));
  }

  /** A stat counts and fails as a {@link Op#GET}. */
  @Override
  public CompletableFuture<io.ankusa.claimcheck.store.ClaimStore.StoredObject> stat(
      String key, Duration timeout) {
    return run(Op.GET, key, timeout, () -> objects.stat(key, timeout));
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    return run(Op.DELETE, key, timeout, () -> objects.delete(key, timeout));
  }

  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    return run(
        Op.LIST,
        "?list " + keyPrefix,
        timeout,
        () -> objects.list(keyPrefix, continuation, timeout));
  }

  private <T> CompletableFuture<T> run(
      Op op, String key, Duration timeout, Supplier<CompletableFuture<T>> body) {
    counts.get(op).incrementAndGet();
    inline.get(op).set(InlineCalls.remainingNanos());
    CompletableFuture<T> result = new CompletableFuture<>();
    Duration wait = Duration.ZERO;
    StoreException failure = null;
    for (Fault fault : faults) {
      if (fault.op != op || !fault.take()) {
        continue;
      }
      if (fault.kind == null && fault.latency == null) {
        wait = timeout;
        failure =
            new StoreException(
                Kind.UNAVAILABLE,
                describe() + " timed out after " + timeout.toMillis() + " ms on " + key);
        break;
      } else if (fault.latency != null) {
        wait = wait.plus(fault.latency);
      } else {
        failure =
            new StoreException(fault.kind, describe() + " injected " + fault.kind + " on " + key);
        break;
      }
    }
    if (failure == null && wait.compareTo(timeout) >= 0) {
      wait = timeout;
      failure =
          new StoreException(
              Kind.UNAVAILABLE,
              describe() + " timed out after " + timeout.toMillis() + " ms on " + key);
    }
    StoreException fail = failure;
    Runnable complete =
        () -> {
          if (fail != null) {
            result.completeExceptionally(fail);
            return;
          }
          body.get()
              .whenComplete(
                  (v, e) -> {
                    if (e != null) {
                      result.completeExceptionally(e);
                    } else {
                      result.complete(v);
                    }
                  });
        };
    if (wait.isZero()) {
      complete.run();
    } else {
      clock.after(wait, complete);
    }
    return result;
  }

  @Override
  public long lastInlineAllowance(Op op) {
    return inline.get(op).get();
  }

  @Override
  public void failAlways(Op op, Kind kind) {
    faults.add(new Fault(op, kind, null, -1));
  }

  @Override
  public void failTimes(Op op, Kind kind, int times) {
    faults.add(new Fault(op, kind, null, times));
  }

  @Override
  public void hang(Op op) {
    faults.add(new Fault(op, null, null, -1));
  }

  @Override
  public void latency(Op op, Duration latency) {
    faults.add(new Fault(op, null, latency, -1));
  }

  @Override
  public void clearFaults() {
    faults.clear();
  }

  @Override
  public long count(Op op) {
    return counts.get(op).get();
  }

  @Override
  public Set<String> keys() {
    return objects.keys();
  }

  @Override
  public byte[] object(String key) {
    return objects.object(key);
  }

  @Override
  public void wallClock(Clock clock) {
    objects.wallClock(clock);
  }

  @Override
  public void lastModified(String key, Instant at) {
    objects.lastModified(key, at);
  }

  @Override
  public void clearObjects() {
    objects.clearObjects();
  }

  @Override
  public String describe() {
    return "faulty:" + name;
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return describe();
  }

  /** One injected fault: a failure kind, a hang (no kind, no latency) or a latency. */
  private static final class Fault {
    final Op op;
    final Kind kind;
    final Duration latency;
    final AtomicLong remaining;

    Fault(Op op, Kind kind, Duration latency, long times) {
      this.op = op;
      this.kind = kind;
      this.latency = latency;
      this.remaining = new AtomicLong(times);
    }

    /** Whether this fault applies to one more operation (counting it down when limited). */
    boolean take() {
      if (remaining.get() < 0) {
        return true;
      }
      return remaining.getAndUpdate(n -> n > 0 ? n - 1 : n) > 0;
    }
  }
}
