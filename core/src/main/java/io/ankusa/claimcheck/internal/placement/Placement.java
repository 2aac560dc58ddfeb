package io.ankusa.claimcheck.internal.placement;

import java.util.Locale;

/**
 * Which store a new pack goes to first, and the order in which the others take over; immutable and
 * thread-safe.
 *
 * <p>The store a pack landed in is recorded nowhere: a read searches the stores in the same write
 * order, so the pack is usually found at its first try.
 */
public enum Placement {
  /** Home is store 0; the others take packs only while it is down. */
  ORDERED,
  /** Home is the pack id's 64 random bits modulo the store count, spreading packs evenly. */
  HASH;

  /** Returns the index of the store pack {@code packId} goes to first, among {@code stores}. */
  public int home(long packId, int stores) {
    if (stores <= 0) {
      throw new IllegalArgumentException("stores must be positive: " + stores);
    }
    return this == ORDERED ? 0 : (int) Long.remainderUnsigned(packId, stores);
  }

  /** Returns every store index in write order: home, then each next one in list order, wrapping. */
  public int[] writeOrder(long packId, int stores) {
    int home = home(packId, stores);
    int[] order = new int[stores];
    for (int i = 0; i < stores; i++) {
      order[i] = (home + i) % stores;
    }
    return order;
  }

  /** Parses a config value ({@code ordered} or {@code hash}, case-insensitive). */
  public static Placement parse(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
