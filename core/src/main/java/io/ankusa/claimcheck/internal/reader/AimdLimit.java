package io.ankusa.claimcheck.internal.reader;

/**
 * Additive-increase, multiplicative-decrease {@link Limit}; not thread-safe (see {@link Limit}).
 *
 * <p>Invariants: {@code 1 <= limit <= max}; an overload halves the limit only if no halving
 * happened within the last {@code backoffNanos} (so a wave of requests failing together halves it
 * once); every overload, halving or not, restarts the success count, and after {@code limit}
 * successes counted since the last change or overload the limit grows by one. Without that restart
 * the overloads inside a backoff window would not stop growth, and a store throttling steadily
 * would see the limit climb to {@code max} between halvings instead of hovering near its capacity.
 */
final class AimdLimit implements Limit {

  private final int max;
  private final long backoffNanos;
  private int limit;
  private int successes;
  private boolean halvedOnce;
  private long lastHalvedAt;

  AimdLimit(int max, long backoffNanos) {
    if (max < 1) {
      throw new IllegalArgumentException("maxInflight must be >= 1, was " + max);
    }
    if (backoffNanos < 0) {
      throw new IllegalArgumentException("backoffNanos must be >= 0, was " + backoffNanos);
    }
    this.max = max;
    this.backoffNanos = backoffNanos;
    this.limit = max;
  }

  @Override
  public int current() {
    return limit;
  }

  @Override
  public int onOutcome(Outcome outcome, long nowNanos) {
    switch (outcome) {
      case SUCCESS -> {
        if (limit < max && ++successes >= limit) {
          limit++;
          successes = 0;
        }
      }
      case OVERLOAD -> {
        successes = 0;
        if (!halvedOnce || nowNanos - lastHalvedAt >= backoffNanos) {
          halvedOnce = true;
          lastHalvedAt = nowNanos;
          limit = Math.max(1, limit / 2);
        }
      }
      case IGNORE -> {}
    }
    return limit;
  }

  @Override
  public String toString() {
    return "AimdLimit[limit=" + limit + ", max=" + max + "]";
  }
}
