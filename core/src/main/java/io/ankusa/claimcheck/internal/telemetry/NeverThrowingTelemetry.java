package io.ankusa.claimcheck.internal.telemetry;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps a sink so that no event ever throws into its caller; thread-safe.
 *
 * <p>Invariants: every call reaches the delegate once; any {@link RuntimeException} or {@link
 * LinkageError} it throws is dropped, and only the first one is logged (a broken sink would
 * otherwise flood the log at the read rate). Two wrappers are equal when their delegates are, so
 * settings holding one compare by the sink they wrap.
 */
final class NeverThrowingTelemetry implements ClaimCheckTelemetry {

  private static final Logger LOG = LoggerFactory.getLogger(NeverThrowingTelemetry.class);

  private final ClaimCheckTelemetry delegate;
  private final AtomicBoolean logged = new AtomicBoolean();

  private NeverThrowingTelemetry(ClaimCheckTelemetry delegate) {
    this.delegate = delegate;
  }

  static ClaimCheckTelemetry wrap(ClaimCheckTelemetry delegate) {
    Objects.requireNonNull(delegate, "delegate");
    if (delegate instanceof NeverThrowingTelemetry || delegate instanceof NoopTelemetry) {
      return delegate;
    }
    return new NeverThrowingTelemetry(delegate);
  }

  private void dropped(Throwable t) {
    if (logged.compareAndSet(false, true)) {
      LOG.warn(
          "claim check telemetry sink {} threw; dropping this and later failures", delegate, t);
    }
  }

  @Override
  public void read(int store, ReadOutcome outcome) {
    try {
      delegate.read(store, outcome);
    } catch (RuntimeException | LinkageError e) {
      dropped(e);
    }
  }

  @Override
  public void limitChanged(int store, int newLimit) {
    try {
      delegate.limitChanged(store, newLimit);
    } catch (RuntimeException | LinkageError e) {
      dropped(e);
    }
  }

  @Override
  public void storeState(int store, int limit, int inflight, int queued) {
    try {
      delegate.storeState(store, limit, inflight, queued);
    } catch (RuntimeException | LinkageError e) {
      dropped(e);
    }
  }

  @Override
  public void breakerOpened(int store) {
    try {
      delegate.breakerOpened(store);
    } catch (RuntimeException | LinkageError e) {
      dropped(e);
    }
  }

  @Override
  public void breakerClosed(int store) {
    try {
      delegate.breakerClosed(store);
    } catch (RuntimeException | LinkageError e) {
      dropped(e);
    }
  }

  @Override
  public void checkIn(CheckInOutcome outcome, int store, long nanos) {
    try {
      delegate.checkIn(outcome, store, nanos);
    } catch (RuntimeException | LinkageError e) {
      dropped(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NeverThrowingTelemetry other && other.delegate.equals(delegate);
  }

  @Override
  public int hashCode() {
    return delegate.hashCode() * 31 + 7;
  }

  @Override
  public String toString() {
    return "neverThrowing(" + delegate + ")";
  }
}
