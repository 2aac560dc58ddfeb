package io.ankusa.claimcheck.internal.schedule;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * How long to wait before the next attempt of a store operation that was throttled or could not
 * answer: exponential backoff with full jitter, honouring the store's Retry-After when it fits;
 * immutable, and thread-safe when its {@code jitter} is. The reader retries fetches with it and the
 * failover writer retries rounds of stores with it.
 *
 * <p>After {@code n} failed attempts the ceiling is {@code min(cap, base * 2^(n-1))} and the wait
 * is uniform in {@code [0, ceiling)} (AWS's "full jitter": callers that failed together spread out
 * instead of coming back together). A Retry-After that fits before the deadline is waited for, plus
 * up to one {@code base} of jitter (so flights told "1 s" together do not return in one burst); one
 * that does not fit is the store's guess, not a promise, and is ignored: the wait is then the plain
 * jittered one (the adaptive limit already bounds what a throttling store is sent). No wait is
 * returned that would start the next attempt at or after the deadline.
 *
 * <p>Defaults, and why: {@code base} 50 ms is about one S3 round trip, so the first retry of a
 * reset or a one-off 500 costs little; {@code cap} 2 s keeps the last retries inside a typical
 * few-second throttle (S3 SlowDown bursts last seconds) and a 30 s read deadline still allows about
 * 15 attempts at the cap, yet one flight never sends more than one request per ~1 s on average once
 * capped.
 *
 * @param base the ceiling of the first wait, > 0
 * @param cap the largest ceiling, >= base
 * @param jitter returns a value in [0, 1) per call (values outside are clamped)
 */
public record Backoff(Duration base, Duration cap, DoubleSupplier jitter) {

  /** The default {@code base}: 50 ms. */
  public static final Duration DEFAULT_BASE = Duration.ofMillis(50);

  /** The default {@code cap}: 2 s. */
  public static final Duration DEFAULT_CAP = Duration.ofSeconds(2);

  /** The default jitter: {@link ThreadLocalRandom}; one instance, so equal settings stay equal. */
  public static final DoubleSupplier RANDOM = () -> ThreadLocalRandom.current().nextDouble();

  /** The default backoff. */
  public static final Backoff DEFAULT = new Backoff(DEFAULT_BASE, DEFAULT_CAP, RANDOM);

  /** Validates; throws {@link IllegalArgumentException} naming the bad field. */
  public Backoff {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(cap, "cap");
    Objects.requireNonNull(jitter, "jitter");
    if (base.isNegative() || base.isZero()) {
      throw new IllegalArgumentException("base must be > 0, was " + base);
    }
    if (cap.compareTo(base) < 0) {
      throw new IllegalArgumentException("cap must be >= base (" + base + "), was " + cap);
    }
  }

  /** Returns the ceiling of the wait after {@code failures} (>= 1) failed attempts, in nanos. */
  public long ceilingNanos(int failures) {
    long b = base.toNanos();
    long c = cap.toNanos();
    int shift = Math.max(0, Math.min(failures - 1, 62));
    return b > (c >> shift) ? c : Math.min(c, b << shift);
  }

  /**
   * Returns the wait in nanos before the next attempt, after {@code failures} (>= 1) failed
   * attempts, the last of which carried {@code retryAfter} (null when none), when {@code
   * remainingNanos} are left until the deadline; or -1 when the next attempt could not start before
   * the deadline (then: stop retrying).
   */
  public long delayNanos(int failures, Duration retryAfter, long remainingNanos) {
    if (remainingNanos <= 0) {
      return -1;
    }
    if (retryAfter != null && !retryAfter.isNegative()) {
      long ra = retryAfter.toNanos();
      if (ra < remainingNanos) {
        long spread = ra + (long) (draw() * base.toNanos());
        return spread < remainingNanos ? spread : ra;
      }
    }
    long d = (long) (draw() * ceilingNanos(failures));
    return d < remainingNanos ? d : -1;
  }

  private double draw() {
    double j = jitter.getAsDouble();
    return j >= 0 && j < 1 ? j : j >= 1 ? Math.nextDown(1.0) : 0;
  }
}
