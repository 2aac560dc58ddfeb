package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Telemetry that records what it is told, for assertions; thread-safe. */
final class RecordingTelemetry implements ClaimCheckTelemetry {

  final ConcurrentHashMap<String, AtomicInteger> reads = new ConcurrentHashMap<>();
  final List<String> limits = new CopyOnWriteArrayList<>();
  final List<String> states = new CopyOnWriteArrayList<>();

  @Override
  public void read(int store, ReadOutcome outcome) {
    reads.computeIfAbsent(store + "/" + outcome, k -> new AtomicInteger()).incrementAndGet();
  }

  int reads(int store, ReadOutcome outcome) {
    AtomicInteger n = reads.get(store + "/" + outcome);
    return n == null ? 0 : n.get();
  }

  int totalReads() {
    return reads.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  @Override
  public void limitChanged(int store, int newLimit) {
    limits.add(store + "=" + newLimit);
  }

  @Override
  public void storeState(int store, int limit, int inflight, int queued) {
    states.add(store + ":" + limit + "/" + inflight + "/" + queued);
  }

  @Override
  public void breakerOpened(int store) {}

  @Override
  public void breakerClosed(int store) {}

  @Override
  public void checkIn(CheckInOutcome outcome, int store, long nanos) {}
}
