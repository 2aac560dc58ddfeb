package io.ankusa.claimcheck.kafka.prefetch;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheck.Prefetch;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.kafka.internal.Markers;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.time.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Fetches the claims of polled batches' refs into a claim check's shared reader ahead of the
 * application (verified, without a copy: see {@link Prefetch#fetch}), within a window of {@code
 * claimcheck.prefetch.max.bytes} that refills as the application reads the prefetched claims;
 * thread-safe.
 *
 * <p>Each distinct ref of a batch is registered as a {@link Prefetch} ({@link ClaimCheck#prefetch}:
 * a pin in the reader's cache, PENDING) and queued, partitions interleaved; {@link #drain} starts
 * queued refs, oldest first, while the inflated bytes of the started, unread ones fit the window
 * (one always may start into an empty window). A started claim stays pinned in the cache — never
 * evicted — until the first lookup of it by anyone else (the deserializer's), which ends the pin,
 * frees its window bytes and starts the next; a pin not read by its deadline (start + {@code
 * claimcheck.read.deadline.ms}) is released at the next drain, a failed prefetch at once. A ref the
 * application reads before its turn ends its PENDING pin and is never fetched by the prefetcher, so
 * no claim is fetched twice.
 *
 * <p>Invariants (under {@code lock}): {@code window} is the sum of the inflated bytes of items
 * taken from {@code pending} and not ended; {@code tracked} maps a key to its one item not ended,
 * so a ref queued or in the window is not queued again; {@link #prefetch} and the listeners never
 * wait for a store; {@link #drain} runs on one thread at a time (others leave it work via {@code
 * wip}) and calls the reader outside the lock. Every distinct ref is counted once as started or
 * skipped; every started one once more as succeeded or failed, and once as unread if its pin ended
 * without a read.
 */
final class Prefetcher {

  private final ClaimCheck claimCheck;
  private final Ticker ticker;
  private final boolean keys;
  private final long deadlineNanos;
  private final long windowMax;
  private final LongAdder started = new LongAdder();
  private final LongAdder skipped = new LongAdder();
  private final LongAdder malformed = new LongAdder();
  private final LongAdder succeeded = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder unread = new LongAdder();
  private final Object lock = new Object();
  private final ArrayDeque<Item> pending = new ArrayDeque<>();
  private final ArrayDeque<Item> open = new ArrayDeque<>();
  private final Map<Range, Item> tracked = new HashMap<>();
  private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();
  private final AtomicInteger wip = new AtomicInteger();
  private long window;
  private boolean closed;

  Prefetcher(ClaimCheck claimCheck) {
    this.claimCheck = Objects.requireNonNull(claimCheck, "claimCheck");
    this.ticker = claimCheck.ticker();
    ClaimCheckConfig config = claimCheck.config();
    this.keys = config.getBoolean(ClaimCheckConfig.KEYS_ENABLED);
    this.deadlineNanos = config.readDeadline().toNanos();
    this.windowMax = config.getLong(ClaimCheckConfig.PREFETCH_MAX_BYTES);
  }

  /**
   * The bytes {@code ref}'s claim occupies once inflated, the window's unit; {@code unknown} when
   * the ref does not say (a compressed claim: it then fills the window alone).
   */
  static long inflatedBytes(ClaimRef ref, long unknown) {
    if (ref.codec() == Codec.NONE) {
      return Math.max(1, ref.length());
    }
    long raw = ref.rawLength(); // a v2 ref records it
    if (raw >= 0) {
      return Math.max(1, raw);
    }
    // A version-1 compressed ref does not: budget it conservatively, as the whole window.
    return Math.max(1, unknown);
  }

  /** Queues the refs of {@code records} and starts as many as the window takes; never waits. */
  void prefetch(ConsumerRecords<byte[], byte[]> records) {
    long pendingUntil = ticker.read() + deadlineNanos;
    synchronized (lock) {
      if (closed) {
        return;
      }
      for (ConsumerRecord<byte[], byte[]> r : interleaved(records)) {
        if (keys) {
          consider(r, r.key(), true, pendingUntil);
        }
        consider(r, r.value(), false, pendingUntil);
      }
    }
    drain();
  }

  /** The records of every partition taken in turn, so the window follows a reader that does too. */
  private static List<ConsumerRecord<byte[], byte[]>> interleaved(
      ConsumerRecords<byte[], byte[]> records) {
    List<List<ConsumerRecord<byte[], byte[]>>> lists = new ArrayList<>();
    int longest = 0;
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<byte[], byte[]>> l = records.records(tp);
      lists.add(l);
      longest = Math.max(longest, l.size());
    }
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>(records.count());
    for (int i = 0; i < longest; i++) {
      for (List<ConsumerRecord<byte[], byte[]>> l : lists) {
        if (i < l.size()) {
          out.add(l.get(i));
        }
      }
    }
    return out;
  }

  private void consider(ConsumerRecord<byte[], byte[]> r, byte[] data, boolean isKey, long until) {
    if (!Markers.carriesRef(r.headers(), data, isKey)) {
      return;
    }
    ClaimRef ref;
    try {
      ref = RefFields.decode(data, isKey);
    } catch (ClaimCheckFailure e) {
      malformed.increment(); // the deserializer reports it with the reason
      return;
    }
    // The stored range: the reader reads, caches and pins the claim by it.
    Range key = new Range(ref.tenant().value(), ref.packId().value(), ref.offset(), ref.length());
    if (tracked.containsKey(key)) {
      return; // queued or in the window already: the deserializer will find that one
    }
    Item item = new Item(ref, key, inflatedBytes(ref, windowMax), until);
    Prefetch pin = windowMax == 0 ? null : claimCheck.prefetch(ref, item);
    if (pin == null) {
      skipped.increment(); // no cache, cached already, or another consumer prefetches it
      return;
    }
    item.pin = pin;
    tracked.put(key, item);
    pending.add(item);
  }

  /** Expires what is due and starts queued refs while the window takes them. */
  void drain() {
    if (wip.getAndIncrement() != 0) {
      return;
    }
    for (int missed = 1; missed != 0; missed = wip.addAndGet(-missed)) {
      for (Item next = take(); next != null && start(next); next = take()) {
        // started (or gone): take the next
      }
    }
  }

  /** Under the lock: the next item the window takes, counted in it, or null. */
  private Item take() {
    synchronized (lock) {
      long now = ticker.read();
      for (Item h = open.peek(); h != null; h = open.peek()) {
        if (!h.ended && now - h.pinnedUntil < 0) {
          break;
        }
        open.poll();
        if (!h.ended) {
          h.pin.release(); // never read by its deadline: the cache may evict it now
          unread.increment();
          end(h);
        }
      }
      for (Item h = pending.peek(); h != null && !closed; h = pending.peek()) {
        if (h.ended || now - h.pendingUntil >= 0) {
          pending.poll();
          if (!h.ended) {
            h.pin.release();
            end(h);
          }
          continue;
        }
        if (window > 0 && window + h.inflated > windowMax) {
          return null;
        }
        pending.poll();
        h.inWindow = true;
        window += h.inflated;
        h.pinnedUntil = now + deadlineNanos;
        return h;
      }
      return null;
    }
  }

  /** Starts {@code item}'s fetch; returns false if the cache had no room (it is queued again). */
  private boolean start(Item item) {
    switch (item.pin.reserve()) {
      case NO_ROOM -> {
        synchronized (lock) {
          if (!item.ended) {
            window -= item.inflated;
            item.inWindow = false;
            pending.addFirst(item); // retried at the next read, release or poll
          }
        }
        return false;
      }
      case GONE -> {
        synchronized (lock) {
          end(item);
        }
        return true;
      }
      default -> {}
    }
    synchronized (lock) {
      if (item.ended || closed) { // read by the application as we reserved, or closed meanwhile
        item.pin.release();
        end(item);
        return true;
      }
      item.started = true;
      open.add(item);
    }
    started.increment();
    CompletableFuture<?> f = item.pin.fetch(item.pinnedUntil);
    running.add(f);
    f.whenComplete(
        (done, error) -> {
          running.remove(f);
          if (error == null) {
            succeeded.increment();
            return;
          }
          failed.increment();
          item.pin.release(); // nothing cached: the deserializer fetches (and reports) it itself
          synchronized (lock) {
            end(item);
          }
          drain();
        });
    return true;
  }

  /** Under the lock: ends {@code item} once, freeing its window bytes. */
  private void end(Item item) {
    if (item.ended) {
      return;
    }
    item.ended = true;
    tracked.remove(item.key, item);
    if (item.inWindow) {
      window -= item.inflated;
      item.inWindow = false;
    }
    if (!item.started) {
      skipped.increment();
    }
  }

  /** Returns the running prefetches' futures now (for tests and benchmarks). */
  List<CompletableFuture<?>> running() {
    return new ArrayList<>(running);
  }

  /** Releases every pin and starts nothing more; idempotent. */
  void close() {
    synchronized (lock) {
      closed = true;
      for (ArrayDeque<Item> q : List.of(pending, open)) {
        for (Item item : q) {
          if (!item.ended) {
            item.pin.release();
            if (item.started) {
              unread.increment();
            }
            end(item);
          }
        }
        q.clear();
      }
    }
  }

  PrefetchStats stats() {
    return new PrefetchStats(
        started.sum(), succeeded.sum(), failed.sum(), skipped.sum(), malformed.sum(), unread.sum());
  }

  /** A claim's stored range: refs naming one range are one claim to the reader. */
  private record Range(String tenant, long packId, long offset, long length) {}

  /** One ref in the queue or the window; its fields are guarded by the prefetcher's lock. */
  private final class Item implements Runnable {
    final ClaimRef ref;
    final Range key;
    final long inflated;
    final long pendingUntil;
    Prefetch pin;
    long pinnedUntil;
    boolean inWindow;
    boolean started;
    boolean ended;

    Item(ClaimRef ref, Range key, long inflated, long pendingUntil) {
      this.ref = ref;
      this.key = key;
      this.inflated = inflated;
      this.pendingUntil = pendingUntil;
    }

    /** The application read the claim: free its window bytes and start the next. */
    @Override
    public void run() {
      synchronized (lock) {
        end(this);
      }
      drain();
    }
  }
}
