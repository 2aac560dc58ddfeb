package io.ankusa.claimcheck.internal.collect;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;

/**
 * Receives every ref a {@link LogScanner} finds; implementations must be thread-safe (partitions
 * are read in parallel, each partition's records in offset order on one thread).
 */
public interface RefVisitor {

  /** A ref in the key ({@code isKey}) or value of the record at {@code topic/partition/offset}. */
  void ref(String topic, int partition, long offset, boolean isKey, ClaimRef ref);

  /**
   * A field that is marked as a ref, or is an intact ref frame, but does not decode: {@code
   * e.reason()} says why ({@code UNKNOWN_VERSION}: written by a newer library).
   */
  default void malformed(
      String topic, int partition, long offset, boolean isKey, MalformedRefException e) {}
}
