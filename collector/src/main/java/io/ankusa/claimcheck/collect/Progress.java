package io.ankusa.claimcheck.collect;

/**
 * Hears a collector run's phases, for logs and progress output; implementations are called on the
 * run's thread and must not throw.
 */
public interface Progress {

  /** Does nothing. */
  Progress NONE = new Progress() {};

  /**
   * T0 and the end offsets are noted, over {@code partitions} partitions holding about {@code
   * records} records; marking starts.
   */
  default void endOffsetsNoted(int partitions, long records) {}

  /** Marking is done: {@code records} read, {@code livePacks} named. */
  default void marked(long records, long livePacks) {}

  /** Every store was listed: {@code packs} pack objects of the tenant. */
  default void listed(long packs) {}

  /** A batch of {@code count} packs was deleted from store {@code store}. */
  default void deleted(int store, int count) {}
}
