package io.ankusa.claimcheck.reader;

import io.ankusa.claimcheck.cache.ClaimCache;
import io.ankusa.claimcheck.telemetry.ClaimCheckTelemetry.ReadOutcome;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Makes claim readers: one shared, reference-counted reader per distinct {@link ReaderSettings}
 * in the process, or a private one; thread-safe.
 *
 * <p>Invariants (under the class lock): {@code SHARED} holds a reader exactly while at least one
 * handle to it is open, and {@code refs} is its number of open handles; closing a handle twice
 * counts once; the last close removes the reader from the map before stopping it, so a later
 * {@link #acquire} with the same settings gets a fresh reader, never a closed one.
 */
public final class ClaimReaders {

  private static final Map<ReaderSettings, Shared> SHARED = new HashMap<>();

  private ClaimReaders() {}

  /**
   * Returns a handle to the process's reader for {@code settings}, starting it on first use; every
   * deserializer, transform and thread using equal settings shares it. Closing the handle releases
   * it; closing the last handle stops the reader.
   */
  public static ClaimReader acquire(ReaderSettings settings) {
    synchronized (ClaimReaders.class) {
      Shared s = SHARED.computeIfAbsent(settings, k -> new Shared(new DefaultClaimReader(k)));
      s.refs++;
      return new Handle(settings, s);
    }
  }

  /** Returns a new reader of its own for {@code settings}; closing it stops it. */
  public static ClaimReader create(ReaderSettings settings) {
    return new DefaultClaimReader(settings);
  }

  /** Returns how many handles to the shared reader for {@code settings} are open (0 if none). */
  public static int sharedRefs(ReaderSettings settings) {
    synchronized (ClaimReaders.class) {
      Shared s = SHARED.get(settings);
      return s == null ? 0 : s.refs;
    }
  }

  private static void release(ReaderSettings settings, Shared s) {
    synchronized (ClaimReaders.class) {
      if (--s.refs > 0) {
        return;
      }
      SHARED.remove(settings, s);
    }
    s.reader.close();
  }

  private static final class Shared {
    final DefaultClaimReader reader;
    int refs;

    Shared(DefaultClaimReader reader) {
      this.reader = reader;
    }
  }

  /** One user's handle on a shared reader; closing it once releases that user's reference. */
  private static final class Handle implements ClaimReader {
    private final ReaderSettings settings;
    private final Shared shared;
    private final DefaultClaimReader reader;
    private final AtomicBoolean closed = new AtomicBoolean();

    Handle(ReaderSettings settings, Shared shared) {
      this.settings = settings;
      this.shared = shared;
      this.reader = shared.reader;
    }

    @Override
    public CompletableFuture<byte[]> fetch(
        FetchKey key, int store, Supplier<CompletableFuture<byte[]>> fn, long deadlineNanos) {
      if (closed.get()) {
        reader.telemetry.read(store, ReadOutcome.SHED);
        return CompletableFuture.failedFuture(new ReadException(ReadException.Reason.CLOSED));
      }
      return reader.fetch(key, store, fn, deadlineNanos);
    }

    @Override
    public ClaimCache.Pin pin(FetchKey key, ClaimCache.PinListener listener) {
      return closed.get() ? null : reader.pin(key, listener);
    }

    @Override
    public long pinnedBytes() {
      return reader.pinnedBytes();
    }

    @Override
    public boolean admit() {
      return closed.get() || reader.admit();
    }

    @Override
    public void release() {
      reader.release();
    }

    @Override
    public int admitted() {
      return reader.admitted();
    }

    @Override
    public Map<Integer, StoreStats> stats() {
      return reader.stats();
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        ClaimReaders.release(settings, shared);
      }
    }

    @Override
    public String toString() {
      return "ClaimReader[shared, " + settings + (closed.get() ? ", closed]" : "]");
    }
  }
}
