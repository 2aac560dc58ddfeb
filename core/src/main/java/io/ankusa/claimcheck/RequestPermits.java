package io.ankusa.claimcheck;

import io.ankusa.claimcheck.ClaimCheck.RequestPermit;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Takes {@link RequestPermit}s, owned by no thread, from a claim check's shared request gate;
 * stateless and thread-safe.
 */
final class RequestPermits {

  private static final RequestPermit UNGATED = () -> {};

  private RequestPermits() {}

  /**
   * Counts one request at {@code cc}'s gate and returns its permit, or null when the gate is full;
   * a claim check without a shared reader has no gate and admits everything.
   */
  static RequestPermit admit(ClaimCheck cc) {
    ClaimReader reader = ReaderAccess.of(cc);
    if (reader == null) {
      return UNGATED;
    }
    return reader.admitUnowned() ? new Permit(reader) : null;
  }

  /** A permit given back at most once. */
  private static final class Permit implements RequestPermit {
    private final ClaimReader reader;
    private final AtomicBoolean open = new AtomicBoolean(true);

    Permit(ClaimReader reader) {
      this.reader = reader;
    }

    @Override
    public void close() {
      if (open.compareAndSet(true, false)) {
        reader.releaseUnowned();
      }
    }
  }
}
