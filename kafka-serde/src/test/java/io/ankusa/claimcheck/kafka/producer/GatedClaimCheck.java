package io.ankusa.claimcheck.kafka.producer;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheck.Prefetch;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.time.Ticker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real claim check (in-memory store) whose check-ins each wait for the test to open the gate of
 * their value's first byte, so a test decides the order uploads finish in; thread-safe.
 */
final class GatedClaimCheck implements ClaimCheck, ReaderAccess {

  private final ClaimCheck real;
  private final Map<Byte, CountDownLatch> gates = new ConcurrentHashMap<>();
  private final Set<Byte> failing = ConcurrentHashMap.newKeySet();
  private final Map<Byte, Error> throwing = new ConcurrentHashMap<>();
  private final Map<Byte, CountDownLatch> started = new ConcurrentHashMap<>();
  final AtomicInteger packCalls = new AtomicInteger();
  final AtomicInteger valuesInLastPack = new AtomicInteger();

  GatedClaimCheck(ClaimCheckConfig config) {
    this.real = ClaimCheck.open(config, null, Ticker.system());
  }

  private CountDownLatch gate(byte id) {
    return gates.computeIfAbsent(id, k -> new CountDownLatch(1));
  }

  /** Lets the check-in of the value starting with {@code id} finish. */
  void open(int id) {
    gate((byte) id).countDown();
  }

  /** Makes the check-in of the value starting with {@code id} fail UNAVAILABLE once opened. */
  void failing(int id) {
    failing.add((byte) id);
  }

  /** Makes the check-in of the value starting with {@code id} throw {@code error} once opened. */
  void throwing(int id, Error error) {
    throwing.put((byte) id, error);
  }

  /** Waits until the check-in of the value starting with {@code id} has begun. */
  void awaitStarted(int id) throws InterruptedException {
    started.computeIfAbsent((byte) id, k -> new CountDownLatch(1)).await();
  }

  private void pass(byte[] value) {
    byte id = value[0];
    started.computeIfAbsent(id, k -> new CountDownLatch(1)).countDown();
    try {
      gate(id).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClaimCheckFailure(ClaimCheckFailure.Reason.UNAVAILABLE, "interrupted", e);
    }
    Error error = throwing.get(id);
    if (error != null) {
      throw error;
    }
    if (failing.contains(id)) {
      throw new ClaimCheckFailure(ClaimCheckFailure.Reason.UNAVAILABLE, "store down (test)", null);
    }
  }

  @Override
  public ClaimRef checkIn(byte[] value) {
    pass(value);
    packCalls.incrementAndGet();
    valuesInLastPack.set(1);
    return real.checkIn(value);
  }

  @Override
  public ClaimRef checkInKey(byte[] key) {
    return real.checkInKey(key);
  }

  @Override
  public List<ClaimRef> checkInAll(List<byte[]> values) {
    for (byte[] v : values) {
      pass(v);
    }
    packCalls.incrementAndGet();
    valuesInLastPack.set(values.size());
    return real.checkInAll(values);
  }

  @Override
  public CompletableFuture<byte[]> redeem(ClaimRef ref, long deadlineNanos) {
    return real.redeem(ref, deadlineNanos);
  }

  @Override
  public Prefetch prefetch(ClaimRef ref, Runnable onRead) {
    return real.prefetch(ref, onRead);
  }

  @Override
  public boolean allows(String tenant) {
    return real.allows(tenant);
  }

  @Override
  public Ticker ticker() {
    return real.ticker();
  }

  @Override
  public ClaimReader reader() {
    return ReaderAccess.of(real);
  }

  @Override
  public ClaimCheckConfig config() {
    return real.config();
  }

  @Override
  public void close() {
    gates.values().forEach(CountDownLatch::countDown);
    real.close();
  }
}
