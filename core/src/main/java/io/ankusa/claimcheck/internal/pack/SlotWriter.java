package io.ankusa.claimcheck.internal.pack;

/**
 * Writes a claim's stored bytes straight into its slot of a pack being encoded in place ({@link
 * Packs#encode(java.util.List, SlotWriter)}), so they are never copied; called once per claim, in
 * index order, on the encoding thread.
 */
@FunctionalInterface
public interface SlotWriter {

  /**
   * Writes claim {@code index}'s stored bytes into exactly {@code pack[at, at + length)}, touching
   * no byte outside it, and returns how many it wrote ({@code length}, or the encoding throws).
   */
  int write(int index, byte[] pack, int at, int length);
}
