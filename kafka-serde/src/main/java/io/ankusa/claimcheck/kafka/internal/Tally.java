package io.ankusa.claimcheck.kafka.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cumulative count whose increment costs the thread owning it (the first to count) one plain
 * store; thread-safe.
 *
 * <p>A deserializer is nearly always driven by one thread (its consumer's poll thread), a
 * serializer often is (the one thread calling {@code send}), but either may be shared: a producer
 * shared by application threads, one serde object in a Kafka Streams topology serving every stream
 * thread. So the first thread to count becomes the owner, for good, and counts in a field no other
 * thread writes; every other thread counts in a {@link LongAdder}.
 *
 * <p>Invariants: {@code owner} is set at most once (by compare-and-set from null) and never
 * changes; only the owner writes {@code owned}, so its increment needs no atomic instruction; each
 * new value is published with an opaque store and read with an opaque load, so a reader on any
 * thread sees a count that never goes down and never tears. {@link #sum} is {@code owned} plus the
 * adder: like {@link LongAdder#sum}, exact once counting stops, not a snapshot while it runs.
 */
final class Tally {

  private static final VarHandle OWNER;
  private static final VarHandle OWNED;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      OWNER = lookup.findVarHandle(Tally.class, "owner", Thread.class);
      OWNED = lookup.findVarHandle(Tally.class, "owned", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @SuppressWarnings("unused") // written through OWNER only
  private Thread owner;

  private long owned;
  private final LongAdder others = new LongAdder();

  /** Adds one. */
  void increment() {
    Thread t = Thread.currentThread();
    if (owner == t || (owner == null && OWNER.compareAndSet(this, null, t))) {
      OWNED.setOpaque(this, owned + 1); // the owner is the only writer: no lost update
    } else {
      others.increment();
    }
  }

  /** The count so far. */
  long sum() {
    return (long) OWNED.getOpaque(this) + others.sum();
  }
}
