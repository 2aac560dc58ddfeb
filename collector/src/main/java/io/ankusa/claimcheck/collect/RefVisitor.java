package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;

/**
 * Receives every ref a scan of topics finds ({@link Collector#scan}, and a collector's run);
 * implementations must be thread-safe (partitions are read in parallel, each partition's records in
 * offset order on one thread).
 *
 * <p>{@code field} names where in the record the ref lies: {@link #KEY}, {@link #VALUE} or {@link
 * #header header:<name>}; one field may hold several refs (a Streams {@code Change} holds a new and
 * an old value).
 */
public interface RefVisitor {

  /** The record's key. */
  String KEY = "key";

  /** The record's value. */
  String VALUE = "value";

  /** The field name of the header named {@code name}. */
  static String header(String name) {
    return "header:" + name;
  }

  /** A ref found in {@code field} of the record at {@code topic/partition/offset}. */
  void ref(String topic, int partition, long offset, String field, ClaimRef ref);

  /**
   * A field that is marked as a ref and starts with the ref magic but is not an intact frame, or an
   * intact ref frame that does not decode: {@code e.reason()} says why ({@code UNKNOWN_VERSION}:
   * written by a newer library).
   */
  default void malformed(
      String topic, int partition, long offset, String field, MalformedRefException e) {}
}
