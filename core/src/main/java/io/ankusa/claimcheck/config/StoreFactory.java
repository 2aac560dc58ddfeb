package io.ankusa.claimcheck.config;

import io.ankusa.claimcheck.store.ClaimStore;

/** Opens the store a {@link StoreSpec} describes; thread-safe (stateless). */
public final class StoreFactory {

  private StoreFactory() {}

  /**
   * Opens {@code spec}'s store through the provider serving its scheme; a memory store is the
   * process-wide one of that name.
   */
  public static ClaimStore open(StoreSpec spec) {
    return spec.open();
  }
}
