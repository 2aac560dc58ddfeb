package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.store.StoreException;

/**
 * Tells an {@link Error} (out of memory, stack overflow) from a store's failure; stateless and
 * thread-safe. An Error is not something a store answered: it is passed on as itself, never
 * classified as "unavailable", never a reason to fail over or to open a breaker.
 */
final class Errors {

  private Errors() {}

  /** Returns the Error behind {@code t} (under completion or execution wrappers), or null. */
  static Error errorBehind(Throwable t) {
    return StoreException.unwrap(t) instanceof Error e ? e : null;
  }
}
