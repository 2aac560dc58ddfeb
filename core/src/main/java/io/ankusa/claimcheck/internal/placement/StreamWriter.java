package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Writes one streamed claim's object to the first store that takes it, blocking; thread-safe (each
 * write keeps its own state).
 *
 * <p>The stores are tried in write order (home first), open breakers skipped unless all are, as
 * {@link FailoverWriter} does — but only while the source has given nothing: a stream cannot be
 * read again, so once a store has read from it, that store's answer is the write's. Each request a
 * store makes is bounded by its op deadline. A collision ({@code ALREADY_EXISTS}) and every other
 * failure end the write; the failure names each store tried, in order.
 */
final class StreamWriter {

  private final List<StoreSlot> slots;
  private final Placement placement;
  private final KeyLayout layout;

  StreamWriter(List<StoreSlot> slots, Placement placement, KeyLayout layout) {
    this.slots = slots;
    this.placement = placement;
    this.layout = layout;
  }

  int write(String tenant, long packId, InputStream source, long length, BooleanSupplier started)
      throws IOException {
    String key = layout.key(tenant, packId);
    int[] order = placement.writeOrder(packId, slots.size());
    List<StoreSlot> candidates = new ArrayList<>();
    for (int i : order) {
      if (!slots.get(i).breaker().isOpen()) {
        candidates.add(slots.get(i));
      }
    }
    if (candidates.isEmpty()) {
      for (int i : order) {
        candidates.add(slots.get(i));
      }
    }
    StringBuilder failures = new StringBuilder();
    StoreException first = null;
    for (StoreSlot slot : candidates) {
      try {
        slot.store().putStreamIfAbsent(key, source, length, slot.opDeadline());
        slot.breaker().onAnswer();
        return slot.index();
      } catch (StoreException e) {
        if (e.kind().isAnswer()) {
          slot.breaker().onAnswer();
        } else {
          slot.breaker().onCouldNotAnswer();
        }
        first = first == null ? e : first;
        failures
            .append(failures.length() == 0 ? "" : "; ")
            .append("store ")
            .append(slot.index())
            .append(" (")
            .append(slot.store().describe())
            .append(") ")
            .append(e.getMessage());
        if (e.kind() == Kind.ALREADY_EXISTS || started.getAsBoolean()) {
          break; // the stream was read: it cannot go to another store
        }
      }
    }
    throw new StoreException(
        first.kind() == Kind.ALREADY_EXISTS ? Kind.ALREADY_EXISTS : Kind.UNAVAILABLE,
        "no store took the streamed " + key + ": " + failures,
        first.retryAfter().orElse(null),
        first);
  }
}
