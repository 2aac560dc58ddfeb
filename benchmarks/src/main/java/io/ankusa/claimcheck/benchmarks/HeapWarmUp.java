package io.ankusa.claimcheck.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;

/**
 * Touches the young generation once before anything is timed; stateless, for one thread at a time.
 *
 * <p>Why: with {@code -Xms4g -Xmx4g} (and no {@code -XX:+AlwaysPreTouch}) the heap is committed but
 * its pages are not, and G1 grows eden to ~2.4 GiB after its first collections: the first pass
 * through that eden takes a page fault (and the kernel's zeroing) for every 4 KiB it allocates.
 * Measured on this rig ({@code Copy.java}, a 256 KiB {@code byte[].clone()} loop): 1.5–2.3 ms/MiB
 * until eden had been filled once, 0.10 ms/MiB after. Whichever candidate runs first pays it: the
 * first cell's warm-up pass of {@code DropInHarness} ran at a fifth of the later rates and its
 * first round was still slow. A real consumer's heap has long been through it. Garbage in 64 KiB
 * arrays (below G1's humongous threshold, so they go to eden) until twice the largest eden seen has
 * been allocated since eden last grew, the young collector ran at least {@value #COLLECTIONS}
 * times, and at least half of {@value #MAX_HEAPS}× the maximum heap was allocated (G1 grows eden
 * only after its first few collections); at most {@value #MAX_HEAPS}× the maximum heap.
 */
final class HeapWarmUp {

  private static final int COLLECTIONS = 3;
  private static final int MAX_HEAPS = 3;
  private static final int CHUNK = 64 * 1024;
  private static final long CHECK_EVERY = 64L << 20;

  @SuppressWarnings("unused")
  private static volatile byte[] sink;

  private HeapWarmUp() {}

  /** Allocates until eden has been through twice at its grown size; returns a line to print. */
  static String touch() {
    long start = System.nanoTime();
    long limit = MAX_HEAPS * Runtime.getRuntime().maxMemory();
    long baseline = youngCollections();
    long allocated = 0;
    long eden = edenCommitted();
    long sinceGrown = 0;
    while (allocated < limit) {
      for (long i = 0; i < CHECK_EVERY; i += CHUNK) {
        sink = new byte[CHUNK];
      }
      allocated += CHECK_EVERY;
      sinceGrown += CHECK_EVERY;
      long e = edenCommitted();
      if (e > eden) {
        eden = e;
        sinceGrown = 0;
      }
      if (allocated >= limit / 2
          && sinceGrown >= 2 * eden
          && youngCollections() - baseline >= COLLECTIONS) {
        break;
      }
    }
    sink = null;
    return String.format(
        "heap warm-up: %,d MiB of garbage (eden %,d MiB), %d young collections, %.1f s",
        allocated >> 20,
        eden >> 20,
        youngCollections() - baseline,
        (System.nanoTime() - start) / 1e9);
  }

  /** The young generation's eden as committed now (its current target size under G1). */
  private static long edenCommitted() {
    long max = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getName().contains("Eden")) {
        max = Math.max(max, p.getUsage().getCommitted());
      }
    }
    return max;
  }

  private static long youngCollections() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      String name = gc.getName();
      if (name.contains("Young") || name.contains("Scavenge") || name.contains("ParNew")) {
        n += Math.max(0, gc.getCollectionCount());
      }
    }
    return n;
  }
}
