package io.ankusa.claimcheck.internal;

import io.ankusa.claimcheck.internal.reader.ClaimReader;

/**
 * A claim check that can show the process-wide reader it redeems through (its request gate, cache
 * and stats), for this library's own Kafka surfaces; implementations are thread-safe. Not API.
 */
public interface ReaderAccess {

  /** The shared reader. */
  ClaimReader reader();

  /** Returns {@code cc}'s shared reader, or null when {@code cc} does not expose one. */
  static ClaimReader of(Object cc) {
    return cc instanceof ReaderAccess a ? a.reader() : null;
  }
}
