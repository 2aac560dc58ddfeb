package io.ankusa.claimcheck.store.memory;

import io.ankusa.claimcheck.store.ListPage;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoredObject;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The in-memory store; thread-safe.
 *
 * <p>Invariants: objects live in a concurrent map and are copied in and out, so a caller never
 * shares an array with the store; put-if-absent is one {@code putIfAbsent} on that map, hence
 * atomic; faults are consulted before the map is touched, so a failed operation changes nothing.
 */
final class InMemoryStore implements MemoryStore {

  private static final int PAGE = 1000;

  private final String name;
  private final HangClock clock;
  private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
  private final Map<String, Instant> written = new ConcurrentHashMap<>();
  private volatile Clock wallClock = Clock.systemUTC();
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final Map<Op, AtomicLong> counts = new EnumMap<>(Op.class);

  InMemoryStore(String name, HangClock clock) {
    this.name = name;
    this.clock = clock;
    for (Op op : Op.values()) {
      counts.put(op, new AtomicLong());
    }
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    byte[] copy = bytes.clone();
    return run(Op.PUT, key, timeout, () -> {
      if (objects.putIfAbsent(key, copy) != null) {
        throw new StoreException(Kind.ALREADY_EXISTS, describe() + " already holds " + key);
      }
      written.put(key, wallClock.instant());
      return null;
    });
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    return run(Op.GET, key, timeout, () -> {
      byte[] object = objects.get(key);
      if (object == null) {
        throw new StoreException(Kind.NOT_FOUND, describe() + " has no " + key);
      }
      int from = (int) Math.min(offset, object.length);
      int to = (int) Math.min((long) from + length, object.length);
      return Arrays.copyOfRange(object, from, to);
    });
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    return run(Op.DELETE, key, timeout, () -> {
      objects.remove(key);
      written.remove(key);
      return null;
    });
  }

  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    return run(Op.LIST, "?list " + keyPrefix, timeout, () -> {
      List<StoredObject> page = new ArrayList<>();
      for (String key : new TreeSet<>(objects.keySet())) {
        if (!key.startsWith(keyPrefix) || (continuation != null && key.compareTo(continuation) <= 0)) {
          continue;
        }
        if (page.size() == PAGE) {
          return new ListPage(page, page.get(PAGE - 1).key());
        }
        byte[] o = objects.get(key);
        Instant at = written.get(key);
        if (o != null && at != null) {
          page.add(new StoredObject(key, o.length, at));
        }
      }
      return new ListPage(page, null);
    });
  }

  @Override
  public void wallClock(Clock clock) {
    this.wallClock = java.util.Objects.requireNonNull(clock, "clock");
  }

  @Override
  public void lastModified(String key, Instant at) {
    if (objects.containsKey(key)) {
      written.put(key, at);
    }
  }

  private <T> CompletableFuture<T> run(Op op, String key, Duration timeout, Supplier<T> body) {
    counts.get(op).incrementAndGet();
    CompletableFuture<T> result = new CompletableFuture<>();
    Duration wait = Duration.ZERO;
    StoreException failure = null;
    for (Fault fault : faults) {
      if (fault.op != op || !fault.take()) {
        continue;
      }
      if (fault.kind == null && fault.latency == null) {
        wait = timeout;
        failure = new StoreException(Kind.UNAVAILABLE,
            describe() + " timed out after " + timeout.toMillis() + " ms on " + key);
        break;
      } else if (fault.latency != null) {
        wait = wait.plus(fault.latency);
      } else {
        failure = new StoreException(fault.kind, describe() + " injected " + fault.kind + " on " + key);
        break;
      }
    }
    if (failure == null && wait.compareTo(timeout) >= 0) {
      wait = timeout;
      failure = new StoreException(Kind.UNAVAILABLE,
          describe() + " timed out after " + timeout.toMillis() + " ms on " + key);
    }
    StoreException fail = failure;
    Runnable complete = () -> {
      if (fail != null) {
        result.completeExceptionally(fail);
        return;
      }
      try {
        result.complete(body.get());
      } catch (StoreException e) {
        result.completeExceptionally(e);
      }
    };
    if (wait.isZero()) {
      complete.run();
    } else {
      clock.after(wait, complete);
    }
    return result;
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
    return new TreeSet<>(objects.keySet());
  }

  @Override
  public byte[] object(String key) {
    byte[] o = objects.get(key);
    return o == null ? null : o.clone();
  }

  @Override
  public void clearObjects() {
    objects.clear();
    written.clear();
  }

  @Override
  public String describe() {
    return "memory:" + name;
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
