package io.ankusa.claimcheck.config;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.StoreConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * One configured store, resolved from {@code claimcheck.stores} and its per-store settings: its
 * URI, the provider serving its scheme and its parsed settings; immutable and thread-safe. Equal
 * specs describe the same store (same index, URI, provider class and settings), which is what lets
 * processes share one store set and one reader per distinct configuration. {@code toString} never
 * shows a secret.
 */
public final class StoreSpec {

  private final int index;
  private final URI uri;
  private final ClaimStoreProvider provider;
  private final StoreConfig settings;

  StoreSpec(int index, URI uri, ClaimStoreProvider provider, StoreConfig settings) {
    this.index = index;
    this.uri = Objects.requireNonNull(uri, "uri");
    this.provider = Objects.requireNonNull(provider, "provider");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /** The store's index in {@code claimcheck.stores}. */
  public int index() {
    return index;
  }

  /** The store's URI, as configured (without user info). */
  public URI uri() {
    return uri;
  }

  /** The URI's scheme, in lower case. */
  public String scheme() {
    return StoreUris.scheme(uri);
  }

  /** The deadline of one operation on this store. */
  public Duration opDeadline() {
    return settings.opDeadline();
  }

  /** The store's parsed settings, as its provider reads them. */
  public StoreConfig settings() {
    return settings;
  }

  /**
   * Opens a new handle on this store through the provider serving its scheme; the caller owns and
   * closes it (a {@code memory:} store is the process-wide one of that name, which closing the
   * handle leaves open).
   */
  public ClaimStore open() {
    return provider.open(uri, settings);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoreSpec s
        && s.index == index
        && s.uri.equals(uri)
        && s.provider.getClass().equals(provider.getClass())
        && s.settings.equals(settings);
  }

  @Override
  public int hashCode() {
    return Objects.hash(index, uri, provider.getClass().getName(), settings);
  }

  @Override
  public String toString() {
    return "StoreSpec[index=" + index + ", uri=" + uri + ", settings=" + settings + "]";
  }
}
