package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.ref.ClaimRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one {@code scan} found, in memory bounded whatever the topics' size: a count per outcome,
 * the first {@code maxProblems} problem records (and how many there were), and the outcomes of the
 * last {@code rememberedClaims} claims, so a claim named by many records nearby is redeemed once;
 * thread-safe.
 *
 * <p>A claim forgotten and named again is redeemed again: it costs a GET, never a wrong count.
 */
final class ScanTally {

  /** The counts, in the order they are reported. */
  static final List<String> COUNTS =
      List.of("refs", "redeemed", "dangling", "corrupt", "unreadable", "refused", "malformed");

  private final Map<String, LongAdder> counts = new LinkedHashMap<>();
  private final int maxProblems;
  private final List<Map<String, Object>> problems = new ArrayList<>(); // guarded by itself
  private final LongAdder problemCount = new LongAdder();
  private final LongAdder redeems = new LongAdder();
  private final Map<ClaimRef, CompletableFuture<String>> recent; // guarded by itself

  ScanTally(int maxProblems, int rememberedClaims) {
    if (maxProblems < 0 || rememberedClaims < 0) {
      throw new IllegalArgumentException("bounds must not be negative");
    }
    this.maxProblems = maxProblems;
    COUNTS.forEach(k -> counts.put(k, new LongAdder()));
    this.recent =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<ClaimRef, CompletableFuture<String>> e) {
            return size() > rememberedClaims;
          }
        };
  }

  /**
   * The outcome of {@code ref}: the one remembered, or a new one that the caller must complete
   * (then {@code started[0]} is set to true and the redeem is counted).
   */
  CompletableFuture<String> outcome(ClaimRef ref, boolean[] started) {
    synchronized (recent) {
      CompletableFuture<String> known = recent.get(ref);
      if (known != null) {
        return known;
      }
      CompletableFuture<String> mine = new CompletableFuture<>();
      recent.put(ref, mine);
      started[0] = true;
      redeems.increment();
      return mine;
    }
  }

  /** Adds one to the count {@code name} (one of {@link #COUNTS}). */
  void count(String name) {
    counts.get(name).increment();
  }

  /** The count {@code name}. */
  long get(String name) {
    return counts.get(name).sum();
  }

  /** Counts a problem record; keeps it only while fewer than {@code maxProblems} are kept. */
  void problem(Map<String, Object> problem) {
    problemCount.increment();
    synchronized (problems) {
      if (problems.size() < maxProblems) {
        problems.add(problem);
      }
    }
  }

  /** The problem records kept: the first {@code maxProblems} found. */
  List<Map<String, Object>> problems() {
    synchronized (problems) {
      return List.copyOf(problems);
    }
  }

  /** How many problem records there were, kept or not. */
  long problemCount() {
    return problemCount.sum();
  }

  /** How many redeems were started. */
  long redeems() {
    return redeems.sum();
  }

  /** How many claims' outcomes are remembered now (at most {@code rememberedClaims}). */
  int remembered() {
    synchronized (recent) {
      return recent.size();
    }
  }

  /** Every count, in report order. */
  Map<String, Long> counts() {
    Map<String, Long> m = new LinkedHashMap<>();
    counts.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }
}
