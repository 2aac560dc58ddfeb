package io.ankusa.claimcheck.internal.placement;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Tells an {@link Error} (out of memory, stack overflow) from a store's failure; stateless and
 * thread-safe. An Error is not something a store answered: it is passed on as itself, never
 * classified as "unavailable", never a reason to fail over or to open a breaker.
 */
final class Errors {

  private Errors() {}

  /** Returns the Error behind {@code t} (under completion or execution wrappers), or null. */
  static Error errorBehind(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof Error e ? e : null;
  }
}
