package io.ankusa.claimcheck.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Everything a chaos run saw, written by every thread of the run and read at its end; thread-safe
 * (concurrent collections and adders only, no lock).
 *
 * <p>Times are {@link System#nanoTime()} readings. A final answer ({@code NOT_FOUND}, {@code
 * CORRUPT}, {@code REFUSED}) is acceptable only when it is {@code CORRUPT} and its pack was being
 * deliberately corrupted at that moment (a corruption window, plus {@link #SLACK_NANOS} for the
 * answer to reach the recorder after the re-read that confirmed it); every other final answer is a
 * violation, whoever saw it.
 */
final class ChaosLedger {

  /** The one run in progress, for the recording deserializer and handler Kafka instantiates. */
  static volatile ChaosLedger current;

  static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(3);

  /** A final answer seen by {@code surface} for record {@code id} (or -1) in pack {@code pack}. */
  record FinalAnswer(
      String surface, long id, String pack, String reason, long at, String message) {}

  /** A pack object that held altered bytes from {@code start} to {@code end} (0 while open). */
  static final class Window {
    final String pack;
    final String store;
    final long start;
    volatile long end;

    Window(String pack, String store, long start) {
      this.pack = pack;
      this.store = store;
      this.start = start;
    }

    boolean covers(long at) {
      long e = end;
      return at >= start && (e == 0 || at <= e + SLACK_NANOS);
    }
  }

  final long seed;
  final long startNanos = System.nanoTime();
  final Set<Long> produced = ConcurrentHashMap.newKeySet();
  final Map<String, LongAdder> sendRetries = new ConcurrentSkipListMap<>();
  final Map<String, LongAdder> consumed = new ConcurrentSkipListMap<>();
  final Map<String, Set<Long>> verified = new ConcurrentSkipListMap<>();
  final List<String> altered = new CopyOnWriteArrayList<>();
  final List<FinalAnswer> finalAnswers = new CopyOnWriteArrayList<>();
  final Map<String, LongAdder> claimFailures = new ConcurrentSkipListMap<>();
  final Map<String, LongAdder> faults = new ConcurrentSkipListMap<>();
  final List<String> faultLog = new CopyOnWriteArrayList<>();
  final List<String> drainLog = new CopyOnWriteArrayList<>();
  final List<Window> corruptions = new CopyOnWriteArrayList<>();
  final Map<String, LongAdder> membership = new ConcurrentSkipListMap<>();
  final List<String> dropped = new CopyOnWriteArrayList<>();
  final Map<String, LongAdder> streamsThreadFailures = new ConcurrentSkipListMap<>();
  final AtomicLong maxPollGapNanos = new AtomicLong();
  final AtomicLong maxCacheBytes = new AtomicLong();
  final Map<String, LongAdder> replays = new ConcurrentSkipListMap<>();
  final List<String> unreadableAfterRestore = new CopyOnWriteArrayList<>();
  final Map<Long, Long> deadLettered = new ConcurrentHashMap<>();

  /** The refs a recording deserializer redeemed, counted as encrypted or not. */
  final Map<String, LongAdder> refs = new ConcurrentSkipListMap<>();

  /** Record id → the pack its ref names (as a consumer of the input topic redeemed it). */
  final Map<Long, String> packs = new ConcurrentHashMap<>();

  /** Record id → where it is in the input topic: partition and offset. */
  final Map<Long, long[]> positions = new ConcurrentHashMap<>();

  ChaosLedger(long seed) {
    this.seed = seed;
  }

  static void count(Map<String, LongAdder> m, String key) {
    m.computeIfAbsent(key, k -> new LongAdder()).increment();
  }

  void consumed(String kind, long id, byte[] value) {
    count(consumed, kind);
    String diff = ChaosValue.verify(seed, id, value);
    if (diff == null) {
      verified.computeIfAbsent(kind, k -> ConcurrentHashMap.newKeySet()).add(id);
    } else {
      altered.add(kind + " record " + id + ": " + diff);
    }
  }

  Set<Long> verified(String kind) {
    return verified.getOrDefault(kind, Set.of());
  }

  void fault(String kind, String detail) {
    count(faults, kind);
    faultLog.add(String.format("%7.1fs %s", seconds(System.nanoTime()), detail));
  }

  Window corrupting(String pack, String store) {
    Window w = new Window(pack, store, System.nanoTime());
    corruptions.add(w);
    return w;
  }

  void finalAnswer(String surface, long id, String pack, String reason, String message) {
    finalAnswers.add(new FinalAnswer(surface, id, pack, reason, System.nanoTime(), message));
  }

  void pollGap(long nanos) {
    maxPollGapNanos.accumulateAndGet(nanos, Math::max);
  }

  double seconds(long nanos) {
    return (nanos - startNanos) / 1e9;
  }

  /** Whether {@code a} is a CORRUPT for a pack deliberately corrupted at that moment. */
  boolean excused(FinalAnswer a) {
    if (!"CORRUPT".equals(a.reason()) || a.pack() == null) {
      return false;
    }
    for (Window w : corruptions) {
      if (w.pack.equals(a.pack()) && w.covers(a.at())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Every final answer that was not excused, grouped by surface, pack and reason: how many, the
   * first and last time, one message.
   */
  List<String> unexcusedFinalAnswers() {
    Map<String, List<FinalAnswer>> groups = new TreeMap<>();
    for (FinalAnswer a : finalAnswers) {
      if (!excused(a)) {
        groups
            .computeIfAbsent(
                a.surface() + " pack " + a.pack() + " " + a.reason(), k -> new ArrayList<>())
            .add(a);
      }
    }
    List<String> out = new ArrayList<>();
    groups.forEach(
        (k, list) -> {
          FinalAnswer first = list.get(0);
          out.add(
              String.format(
                  "%s (record %d): %d times, %.1fs..%.1fs: %s",
                  k,
                  first.id(),
                  list.size(),
                  seconds(first.at()),
                  seconds(list.get(list.size() - 1).at()),
                  first.message()));
        });
    return out;
  }

  static Map<String, Long> sums(Map<String, LongAdder> m) {
    Map<String, Long> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
